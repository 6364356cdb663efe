#include "netns_thread.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <exception>
#include <thread>

#include "op_error.h"

namespace capstan {

void RunInNetns(const std::string& netnsPath, const std::function<void()>& fn) {
  if (netnsPath.empty()) {
    fn();
    return;
  }
  std::exception_ptr failure;
  std::thread worker([&] {
    try {
      int fd = open(netnsPath.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) throw OpError(errno, "cannot open netns " + netnsPath + ": " + ErrnoMessage(errno));
      if (setns(fd, CLONE_NEWNET) < 0) {
        int e = errno;
        close(fd);
        throw OpError(e, "cannot enter netns " + netnsPath + ": " + ErrnoMessage(e));
      }
      close(fd);
      fn();
    } catch (...) {
      failure = std::current_exception();
    }
  });
  worker.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace capstan
