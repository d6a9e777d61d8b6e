package dev.tributary.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.common.errors.InvalidRequestException;
import dev.tributary.security.AclBinding;
import dev.tributary.security.AclOperation;
import dev.tributary.security.ApiKey;
import dev.tributary.security.ApiKeySecrets;
import dev.tributary.security.PatternType;
import dev.tributary.security.ResourceType;
import dev.tributary.security.SecurityChange;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * API keys and ACLs as metadata records: encoding, replay, snapshots, and the controller's diff.
 */
class SecurityRecordsTest {
  private static final ApiKey KEY =
      new ApiKey("k1", "User:alice", ApiKeySecrets.sha256("secret"), "ci", 1234);
  private static final AclBinding ACL =
      new AclBinding(
          "User:alice", AclOperation.READ, ResourceType.TOPIC, PatternType.PREFIXED, "orders");

  @Test
  void everySecurityRecordSurvivesEncoding() {
    for (MetadataRecord record :
        List.of(
            new MetadataRecord.ApiKeyCreated(KEY),
            new MetadataRecord.ApiKeyDeleted("k1"),
            new MetadataRecord.AclCreated(ACL),
            new MetadataRecord.AclDeleted(ACL))) {
      assertThat(MetadataRecordSerde.deserialize(MetadataRecordSerde.serialize(record)))
          .isEqualTo(record);
    }
  }

  @Test
  void replayBuildsTheSecurityImageAndSnapshotsKeepIt() {
    MetadataImage image =
        MetadataImage.EMPTY
            .replay(0, new MetadataRecord.ApiKeyCreated(KEY))
            .replay(1, new MetadataRecord.AclCreated(ACL));
    assertThat(image.security().apiKeys()).containsEntry("k1", KEY);
    assertThat(image.security().acls()).containsExactly(ACL);
    MetadataImage restored = MetadataImage.EMPTY;
    long offset = 0;
    for (MetadataRecord record : image.toRecords()) {
      restored = restored.replay(offset++, record);
    }
    assertThat(restored.security()).isEqualTo(image.security());
    MetadataImage after =
        image
            .replay(2, new MetadataRecord.AclDeleted(ACL))
            .replay(3, new MetadataRecord.ApiKeyDeleted("k1"));
    assertThat(after.security().acls()).isEmpty();
    assertThat(after.security().apiKeys()).isEmpty();
  }

  @Test
  void theControllerWritesOnlyWhatChanges() {
    MetadataImage image = MetadataImage.EMPTY.replay(0, new MetadataRecord.AclCreated(ACL));
    AclBinding other =
        new AclBinding(
            "User:bob", AclOperation.WRITE, ResourceType.TOPIC, PatternType.LITERAL, "t");
    assertThat(SecurityControl.records(image, SecurityChange.createAcls(List.of(ACL, other))))
        .containsExactly(new MetadataRecord.AclCreated(other));
    assertThat(SecurityControl.records(image, SecurityChange.deleteAcls(List.of(ACL, other))))
        .containsExactly(new MetadataRecord.AclDeleted(ACL));
    assertThat(SecurityControl.records(image, SecurityChange.deleteApiKey("none"))).isEmpty();
    MetadataImage withKey = image.replay(1, new MetadataRecord.ApiKeyCreated(KEY));
    assertThatThrownBy(() -> SecurityControl.records(withKey, SecurityChange.createApiKey(KEY)))
        .isInstanceOf(InvalidRequestException.class);
  }
}
