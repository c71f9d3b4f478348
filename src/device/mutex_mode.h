// Abseil's mutex deadlock detector, off in release builds.
#pragma once

namespace zonestack::device {

// Debian's Abseil is built without NDEBUG, so by default every absl::Mutex
// lock also runs its deadlock detector, which updates one process-wide lock
// graph behind a global lock: a lock and a reader lock took 82 ns with it
// and 14 ns without on this project's build machine, and every read, write
// and metadata record takes such locks. Every path through ZoneStack opens
// a device first, and each device's constructor calls this: in release
// builds (NDEBUG) it turns the detector off for the whole process; Debug
// builds (the tests, also under the sanitizers) keep it.
void ReleaseBuildsSkipDeadlockDetection();

}  // namespace zonestack::device
