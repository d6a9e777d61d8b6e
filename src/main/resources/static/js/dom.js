// Tiny DOM helpers. Every text goes through textContent / text nodes, never innerHTML, so server-provided strings
// (topic names, reasons) cannot inject markup.

/**
 * el('span', {class: 'badge ok', title: 'why', data: {broker: 2}, attrs: {role: 'img'}}, 'text', childNode)
 * Strings and numbers among the children become text nodes; null/undefined/false children are skipped.
 */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null) continue;
    if (name === 'class') node.className = value;
    else if (name === 'text') node.textContent = value;
    else if (name === 'data') for (const [k, v] of Object.entries(value)) node.dataset[k] = String(v);
    else if (name === 'attrs') for (const [k, v] of Object.entries(value)) node.setAttribute(k, String(v));
    else node[name] = value; // title, type, value, hidden, disabled, ...
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else node.append(typeof child === 'object' ? child : String(child));
  }
}

/** SVG elements need their namespace. */
export function svg(tag, attrs = {}) {
  const node = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

// Setters that touch the DOM only when the value differs: re-applying an unchanged row costs no layout.
export function setText(node, text) {
  const value = String(text);
  if (node.textContent !== value) node.textContent = value;
}

export function setAttr(node, name, value) {
  const v = String(value);
  if (node.getAttribute(name) !== v) node.setAttribute(name, v);
}

export function setData(node, name, value) {
  const v = String(value);
  if (node.dataset[name] !== v) node.dataset[name] = v;
}

export function setClass(node, className, on) {
  if (node.classList.contains(className) !== !!on) node.classList.toggle(className, !!on);
}

export function setHidden(node, hidden) {
  if (node.hidden !== !!hidden) node.hidden = !!hidden;
}

/** A badge: its meaning is in its text, colour only repeats it. */
export function badge(text, kind, title) {
  return el('span', { class: 'badge ' + kind, title }, text);
}

export function setClassName(node, value) {
  if (node.className !== value) node.className = value;
}
