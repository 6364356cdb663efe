#include "netlink_socket.h"

#include <errno.h>
#include <linux/rtnetlink.h>
#include <time.h>

#include "op_error.h"

namespace capstan::nl {

Socket::Socket() : tx_(64 * 1024), rx_(256 * 1024) {
  sock_ = mnl_socket_open(NETLINK_ROUTE);
  if (!sock_) throw OpError(errno, "netlink socket: " + ErrnoMessage(errno));
  int one = 1;
  mnl_socket_setsockopt(sock_, NETLINK_EXT_ACK, &one, sizeof one);
  mnl_socket_setsockopt(sock_, NETLINK_CAP_ACK, &one, sizeof one);
  if (mnl_socket_bind(sock_, 0, MNL_SOCKET_AUTOPID) < 0) {
    int e = errno;
    mnl_socket_close(sock_);
    throw OpError(e, "netlink bind: " + ErrnoMessage(e));
  }
  portid_ = mnl_socket_get_portid(sock_);
  seq_ = static_cast<uint32_t>(time(nullptr));
}

Socket::~Socket() {
  if (sock_) mnl_socket_close(sock_);
}

nlmsghdr* Socket::Begin(uint16_t type, uint16_t flags) {
  nlmsghdr* nlh = mnl_nlmsg_put_header(tx_.data());
  nlh->nlmsg_type = type;
  nlh->nlmsg_flags = NLM_F_REQUEST | flags;
  nlh->nlmsg_seq = ++seq_;
  return nlh;
}

namespace {
// Pulls the human-readable text out of an extended ack, if the kernel sent one.
std::string ExtAckMessage(const nlmsghdr* nlh) {
  if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS)) return "";
  const auto* err = static_cast<const nlmsgerr*>(mnl_nlmsg_get_payload(nlh));
  size_t offset = sizeof(nlmsgerr);
  if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) offset += err->msg.nlmsg_len - sizeof(nlmsghdr);
  const nlattr* attr;
  std::string text;
  CAPSTAN_ATTR_FOR_EACH(attr, nlh, offset) {
    if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG) text = mnl_attr_get_str(attr);
  }
  return text;
}
}  // namespace

int Socket::Receive(uint32_t seq, const std::function<void(const nlmsghdr*)>* onMsg, std::string* message) {
  for (;;) {
    ssize_t n = mnl_socket_recvfrom(sock_, rx_.data(), rx_.size());
    if (n < 0) return errno;
    const nlmsghdr* nlh = reinterpret_cast<const nlmsghdr*>(rx_.data());
    int len = static_cast<int>(n);
    while (mnl_nlmsg_ok(nlh, len)) {
      if (nlh->nlmsg_seq != seq || nlh->nlmsg_pid != portid_) {
        nlh = mnl_nlmsg_next(nlh, &len);
        continue;
      }
      if (nlh->nlmsg_type == NLMSG_ERROR) {
        const auto* err = static_cast<const nlmsgerr*>(mnl_nlmsg_get_payload(nlh));
        if (err->error != 0 && message) *message = ExtAckMessage(nlh);
        return -err->error;
      }
      if (nlh->nlmsg_type == NLMSG_DONE) {
        const int* status = static_cast<const int*>(mnl_nlmsg_get_payload(nlh));
        return nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(int)) && *status < 0 ? -*status : 0;
      }
      if (onMsg) (*onMsg)(nlh);
      nlh = mnl_nlmsg_next(nlh, &len);
    }
  }
}

int Socket::Request(nlmsghdr* nlh, std::string* message) {
  nlh->nlmsg_flags |= NLM_F_ACK;
  if (mnl_socket_sendto(sock_, nlh, nlh->nlmsg_len) < 0) return errno;
  return Receive(nlh->nlmsg_seq, nullptr, message);
}

int Socket::Dump(nlmsghdr* nlh, const std::function<void(const nlmsghdr*)>& onMsg) {
  nlh->nlmsg_flags |= NLM_F_DUMP;
  if (mnl_socket_sendto(sock_, nlh, nlh->nlmsg_len) < 0) return errno;
  return Receive(nlh->nlmsg_seq, &onMsg, nullptr);
}

}  // namespace capstan::nl
