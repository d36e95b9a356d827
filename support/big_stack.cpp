// See big_stack.hpp.
#include "support/big_stack.hpp"

#include <pthread.h>
#include <time.h>

#include <cerrno>

#include <exception>

namespace halo {

namespace {
struct Job {
  const std::function<void()>* f;
  std::exception_ptr error;
};

void* trampoline(void* arg) {
  auto* job = static_cast<Job*>(arg);
  try {
    (*job->f)();
  } catch (...) {
    job->error = std::current_exception();
  }
  return nullptr;
}
}  // namespace

void run_on_big_stack(const std::function<void()>& f, const std::function<void()>& while_waiting) {
  Job job{&f, nullptr};
  pthread_attr_t attr;
  pthread_t thread;
  bool started = pthread_attr_init(&attr) == 0 && pthread_attr_setstacksize(&attr, kBigStackBytes) == 0 &&
                 pthread_create(&thread, &attr, trampoline, &job) == 0;
  pthread_attr_destroy(&attr);
  if (!started) {
    f();
    return;
  }
  if (while_waiting) {
    while (true) {
      struct timespec at {};
      clock_gettime(CLOCK_REALTIME, &at);
      at.tv_nsec += 20'000'000;
      if (at.tv_nsec >= 1'000'000'000) at.tv_sec += 1, at.tv_nsec -= 1'000'000'000;
      if (pthread_timedjoin_np(thread, nullptr, &at) != ETIMEDOUT) break;
      while_waiting();
    }
  } else {
    pthread_join(thread, nullptr);
  }
  if (job.error) std::rethrow_exception(job.error);
}

}  // namespace halo
