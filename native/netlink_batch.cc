#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "netlink_exec.h"
#include "op_error.h"

namespace capstan::nl {

// /proc/sys/net resolves against the network namespace of the thread that opens the file,
// so this must run on the thread that setns()ed (RunInNetns guarantees it).
int ExecSysctl(const Op& op, Result& r) {
  std::string file = "/proc/sys/" + op.path;
  if (op.kind == Kind::SysctlWrite) {
    int fd = open(file.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return errno;
    ssize_t n = write(fd, op.value.data(), op.value.size());
    int e = n < 0 ? errno : 0;
    close(fd);
    return e;
  }
  int fd = open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  char buf[4096];
  ssize_t n = read(fd, buf, sizeof buf);
  int e = n < 0 ? errno : 0;
  close(fd);
  if (!e) {
    std::string v(buf, static_cast<size_t>(n));
    while (!v.empty() && (v.back() == '\n')) v.pop_back();
    r.value = v;
  }
  return e;
}

namespace {
int Exec(Socket& s, const Op& op, Result& r) {
  switch (op.kind) {
    case Kind::LinkAddVeth: case Kind::LinkAddVxlan: case Kind::LinkSet: case Kind::LinkDel:
    case Kind::LinkList:
      return ExecLink(s, op, r);
    case Kind::AddrAdd: case Kind::AddrDel: case Kind::AddrList:
      return ExecAddr(s, op, r);
    case Kind::RouteAdd: case Kind::RouteReplace: case Kind::RouteDel: case Kind::RouteList:
      return ExecRoute(s, op, r);
    case Kind::SysctlWrite: case Kind::SysctlRead:
      return ExecSysctl(op, r);
    default:
      return ExecNeigh(s, op, r);
  }
}
}  // namespace

std::vector<Result> RunBatch(const std::vector<Op>& ops, bool continueOnError) {
  Socket sock;
  std::vector<Result> results(ops.size());
  bool failed = false;
  for (size_t i = 0; i < ops.size(); i++) {
    if (failed && !continueOnError) {
      results[i].skipped = true;
      continue;
    }
    results[i].err = Exec(sock, ops[i], results[i]);
    if (results[i].err) {
      failed = true;
      if (results[i].message.empty()) results[i].message = ErrnoMessage(results[i].err);
    }
  }
  return results;
}

}  // namespace capstan::nl
