package dev.tributary.metadata;

import dev.tributary.common.errors.InvalidRequestException;
import dev.tributary.security.AclBinding;
import dev.tributary.security.ApiKey;
import dev.tributary.security.SecurityChange;
import dev.tributary.security.SecurityImage;
import java.util.ArrayList;
import java.util.List;

/**
 * The controller's side of API keys and ACLs: turns a {@link SecurityChange} into the records that
 * make it true, computing only what changes (an ACL that exists is not created again, one that does
 * not is not deleted), as Kafka's AclControlManager does.
 */
final class SecurityControl {
  private SecurityControl() {}

  static List<MetadataRecord> records(MetadataImage image, SecurityChange change) {
    SecurityImage security = image.security();
    List<MetadataRecord> records = new ArrayList<>();
    for (ApiKey key : change.createApiKeys()) {
      if (security.apiKeys().containsKey(key.keyId())) {
        throw new InvalidRequestException("API key " + key.keyId() + " already exists");
      }
      records.add(new MetadataRecord.ApiKeyCreated(key));
    }
    for (String keyId : change.deleteApiKeys()) {
      if (security.apiKeys().containsKey(keyId)) {
        records.add(new MetadataRecord.ApiKeyDeleted(keyId));
      }
    }
    for (AclBinding acl : change.createAcls()) {
      if (!security.acls().contains(acl)) {
        records.add(new MetadataRecord.AclCreated(acl));
      }
    }
    for (AclBinding acl : change.deleteAcls()) {
      if (security.acls().contains(acl)) {
        records.add(new MetadataRecord.AclDeleted(acl));
      }
    }
    return records;
  }
}
