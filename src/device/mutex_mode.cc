#include "device/mutex_mode.h"

#include "absl/synchronization/mutex.h"

namespace zonestack::device {

void ReleaseBuildsSkipDeadlockDetection() {
#ifdef NDEBUG
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
#endif
}

}  // namespace zonestack::device
