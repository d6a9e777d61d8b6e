package dev.tributary.security;

/**
 * What an ACL allows: Tributary's three roles, each a group of Kafka's ACL operations
 * (docs/adr/0014- authentication-and-acls.md). A grant of one implies nothing else except that
 * {@link #ADMIN} implies all three, as Kafka's {@code ALL} does.
 */
public enum AclOperation {
  /** Kafka's READ and DESCRIBE: fetch records, consume in a group, describe topics and groups. */
  READ,
  /** Kafka's WRITE: produce (auto-creating a missing topic takes ADMIN, as Kafka asks CREATE). */
  WRITE,
  /**
   * Kafka's ALL: create, alter, delete and configure topics; manage ACLs and API keys (on the
   * cluster); the dashboard's fault actions (on the cluster). Implies READ and WRITE.
   */
  ADMIN;

  /** True if a grant of this operation allows {@code requested}. */
  public boolean implies(AclOperation requested) {
    return this == requested || this == ADMIN;
  }
}
