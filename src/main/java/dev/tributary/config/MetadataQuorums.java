package dev.tributary.config;

import dev.tributary.metadata.LocalMetadataLog;
import dev.tributary.metadata.MetadataQuorum;
import dev.tributary.metadata.ratis.QuorumVoters;
import dev.tributary.metadata.ratis.RaftTls;
import dev.tributary.metadata.ratis.RatisMetadataQuorum;
import dev.tributary.metadata.ratis.RatisQuorumOptions;
import dev.tributary.server.BrokerConfig;
import java.util.Map;
import java.util.Optional;

/**
 * Chooses the metadata quorum: the cluster's Raft group when voters are configured, else a local
 * log of one.
 */
final class MetadataQuorums {
  private MetadataQuorums() {}

  /**
   * @param raftTls mutual TLS for the Raft port, when the cluster runs on TLS
   */
  static MetadataQuorum open(BrokerConfig config, Optional<RaftTls> raftTls) {
    if (!config.clustered()) {
      return LocalMetadataLog.open(config.metadataDir(), config.brokerId());
    }
    RatisQuorumOptions options =
        raftTls.map(RatisQuorumOptions.DEFAULTS::withTls).orElse(RatisQuorumOptions.DEFAULTS);
    return RatisMetadataQuorum.start(
        config.brokerId(),
        QuorumVoters.parse(config.quorumVoters()),
        config.quorumListeners().isEmpty()
            ? Map.of()
            : QuorumVoters.parse(config.quorumListeners()),
        config.quorumDir(),
        options);
  }
}
