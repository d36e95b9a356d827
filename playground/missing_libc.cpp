// The Linux calls of halo's process code that Emscripten's libc lacks. A page never reaches
// them: it starts no process (support/run_process.cpp refuses first) and creates no thread
// (support/big_stack.cpp then runs on the calling thread), but the code that would must
// still link. Each fails as an unsupported system call does.
#include <cerrno>
#include <ctime>

#include <pthread.h>

extern "C" int prctl(int, ...) {
  errno = ENOSYS;
  return -1;
}

extern "C" int unshare(int) {
  errno = ENOSYS;
  return -1;
}

extern "C" int pthread_timedjoin_np(pthread_t, void**, const struct timespec*) { return ENOSYS; }
