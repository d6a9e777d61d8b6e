package dev.tributary.security;

/** What an ACL is about, as Kafka's resource types. */
public enum ResourceType {
  /** The whole cluster; its only name is {@link AclBinding#CLUSTER_NAME}. */
  CLUSTER,
  TOPIC,
  /** A consumer group. */
  GROUP
}
