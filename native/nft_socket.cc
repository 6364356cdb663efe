#include "nft_socket.h"

#include <errno.h>
#include <linux/netfilter/nfnetlink.h>
#include <sys/socket.h>
#include <time.h>

#include "op_error.h"

namespace capstan::nft {

Socket::Socket(size_t sendBytes) : rx_(512 * 1024) {
  sock_ = mnl_socket_open(NETLINK_NETFILTER);
  if (!sock_) throw OpError(errno, "nfnetlink socket: " + ErrnoMessage(errno));
  int one = 1;
  mnl_socket_setsockopt(sock_, NETLINK_CAP_ACK, &one, sizeof one);
  mnl_socket_setsockopt(sock_, NETLINK_EXT_ACK, &one, sizeof one);
  // Room for the per-message errors of a large failing batch.
  int rcv = 16 * 1024 * 1024;
  setsockopt(mnl_socket_get_fd(sock_), SOL_SOCKET, SO_RCVBUFFORCE, &rcv, sizeof rcv);
  struct timeval tv = {120, 0};
  setsockopt(mnl_socket_get_fd(sock_), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  if (mnl_socket_bind(sock_, 0, MNL_SOCKET_AUTOPID) < 0) {
    int e = errno;
    mnl_socket_close(sock_);
    throw OpError(e, "nfnetlink bind: " + ErrnoMessage(e));
  }
  portid_ = mnl_socket_get_portid(sock_);
  seq_ = static_cast<uint32_t>(time(nullptr)) << 8;
  if (sendBytes) ReserveSend(sendBytes);
}

Socket::~Socket() {
  if (sock_) mnl_socket_close(sock_);
}

void Socket::ReserveSend(size_t bytes) {
  int size = static_cast<int>(bytes + 64 * 1024);
  setsockopt(mnl_socket_get_fd(sock_), SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof size);
}

int Socket::SendIov(const struct iovec* iov, size_t n) {
  sockaddr_nl snl = {};
  snl.nl_family = AF_NETLINK;
  msghdr msg = {};
  msg.msg_name = &snl;
  msg.msg_namelen = sizeof snl;
  msg.msg_iov = const_cast<struct iovec*>(iov);
  msg.msg_iovlen = n;
  return sendmsg(mnl_socket_get_fd(sock_), &msg, 0) < 0 ? errno : 0;
}

ssize_t Socket::Recv(std::vector<char>& buf) {
  ssize_t n = mnl_socket_recvfrom(sock_, buf.data(), buf.size());
  return n < 0 ? -errno : n;
}

int Socket::Talk(nlmsghdr* nlh, const std::function<void(const nlmsghdr*)>& cb) {
  if (mnl_socket_sendto(sock_, nlh, nlh->nlmsg_len) < 0) return errno;
  uint32_t seq = nlh->nlmsg_seq;
  for (;;) {
    ssize_t n = Recv(rx_);
    if (n < 0) return static_cast<int>(-n);
    int len = static_cast<int>(n);
    const nlmsghdr* m = reinterpret_cast<const nlmsghdr*>(rx_.data());
    while (mnl_nlmsg_ok(m, len)) {
      if (m->nlmsg_seq == seq) {
        if (m->nlmsg_type == NLMSG_ERROR) {
          return -static_cast<const nlmsgerr*>(mnl_nlmsg_get_payload(m))->error;
        }
        if (m->nlmsg_type == NLMSG_DONE) return 0;
        cb(m);
        if (!(m->nlmsg_flags & NLM_F_MULTI)) return 0;
      }
      m = mnl_nlmsg_next(m, &len);
    }
  }
}

}  // namespace capstan::nft
