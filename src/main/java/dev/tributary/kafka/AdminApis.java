package dev.tributary.kafka;

import dev.tributary.server.AccessControl;
import dev.tributary.server.AdminService;
import dev.tributary.server.ConfigDescriptions;
import dev.tributary.server.LogDirsService;
import dev.tributary.server.MetadataCache;
import java.util.List;

/**
 * The admin APIs of the Kafka listener, the ones kafka-clients' Admin and Kafka's topic and config
 * tools call: topics and partitions, configs, the cluster, leader elections, partition
 * reassignments, log directories, unregistering a decommissioned broker. All go through {@link
 * AdminService}, {@link ConfigDescriptions} and {@link LogDirsService}, as REST's admin does.
 */
final class AdminApis {
  private AdminApis() {}

  static List<ApiHandler> of(
      AdminService admin, LogDirsService logDirs, MetadataCache metadata, AccessControl access) {
    return List.of(
        new CreateTopicsApi(admin, access),
        new DeleteTopicsApi(admin, metadata, access),
        new CreatePartitionsApi(admin),
        new DescribeConfigsApi(new ConfigDescriptions(metadata, access)),
        new AlterConfigsApis.Legacy(admin),
        new AlterConfigsApis.Incremental(admin),
        new DescribeClusterApi(metadata, access),
        new ElectLeadersApi(admin),
        new AlterPartitionReassignmentsApi(admin, metadata),
        new ListPartitionReassignmentsApi(admin),
        new DescribeLogDirsApi(logDirs),
        new UnregisterBrokerApi(admin));
  }
}
