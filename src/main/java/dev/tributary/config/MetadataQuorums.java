package dev.tributary.config;

import dev.tributary.metadata.LocalMetadataLog;
import dev.tributary.metadata.MetadataQuorum;
import dev.tributary.metadata.ratis.QuorumVoters;
import dev.tributary.metadata.ratis.RatisMetadataQuorum;
import dev.tributary.metadata.ratis.RatisQuorumOptions;
import dev.tributary.server.BrokerConfig;
import java.util.Map;

/**
 * Chooses the metadata quorum: the cluster's Raft group when voters are configured, else a local
 * log of one.
 */
final class MetadataQuorums {
  private MetadataQuorums() {}

  static MetadataQuorum open(BrokerConfig config) {
    if (!config.clustered()) {
      return LocalMetadataLog.open(config.metadataDir(), config.brokerId());
    }
    return RatisMetadataQuorum.start(
        config.brokerId(),
        QuorumVoters.parse(config.quorumVoters()),
        config.quorumListeners().isEmpty()
            ? Map.of()
            : QuorumVoters.parse(config.quorumListeners()),
        config.quorumDir(),
        RatisQuorumOptions.DEFAULTS);
  }
}
