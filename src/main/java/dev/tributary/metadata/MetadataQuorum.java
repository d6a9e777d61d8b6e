package dev.tributary.metadata;

import java.util.List;
import java.util.OptionalInt;
import java.util.function.Consumer;

/**
 * The replicated log of metadata records, and the image its committed records replay into. Two
 * implementations: {@link LocalMetadataLog} (a quorum of one, in a local file) and the Ratis-backed
 * quorum of the cluster. Callers see the same contract either way.
 *
 * <p>Contract:
 *
 * <ul>
 *   <li>{@link #append} commits a batch atomically (all or none), in order, and only if the image
 *       it was computed from is still current: the batch carries {@code expectedLastOffset}, and
 *       every member applies it only if its image's last offset equals that; otherwise the batch is
 *       a no-op everywhere and the caller gets {@link StaleMetadataException} (compute again from
 *       the newer image). This is what keeps a deposed controller's late write from applying on top
 *       of its successor's.
 *   <li>Every member replays committed records in the same order into equal images; listeners are
 *       called in commit order, one at a time, with every new image ("notification only": they must
 *       not call {@link #append}).
 *   <li>Only the active controller appends; elsewhere {@link #append} throws {@link
 *       dev.tributary.common.errors.NotControllerException}.
 * </ul>
 */
public interface MetadataQuorum extends AutoCloseable {
  /**
   * Commits {@code records} as one atomic batch if the image is still at {@code
   * expectedLastOffset}; returns the image that includes them.
   */
  MetadataImage append(long expectedLastOffset, List<MetadataRecord> records);

  /** The image of everything committed and applied on this member so far. */
  MetadataImage image();

  /** Calls {@code listener} with the current image now and with every later one. */
  void subscribe(Consumer<MetadataImage> listener);

  /** The broker id of the active controller (the quorum leader), if one is known. */
  OptionalInt activeControllerId();

  /** True while this member is the active controller. */
  boolean isActiveController();

  /**
   * Starts removing {@code brokerId} from the members that follow the log without voting, if it is
   * one and this member can (the leader of a replicated quorum); returns at once. A no-op
   * otherwise, and for a quorum of one.
   */
  default void removeListener(int brokerId) {}

  /** The controller epoch: the Raft term of the current leader (always 1 for a quorum of one). */
  long controllerEpoch();

  @Override
  void close();
}
