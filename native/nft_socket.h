// A NETLINK_NETFILTER socket sized for large transactions and dumps.
#pragma once
#include <libmnl/libmnl.h>

#include <functional>
#include <vector>

namespace capstan::nft {

class Socket {
 public:
  explicit Socket(size_t sendBytes = 0);  // throws OpError
  ~Socket();
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;

  uint32_t NextSeq() { return ++seq_; }
  uint32_t PortId() const { return portid_; }
  // Grows the kernel send buffer so a whole batch fits in one sendmsg (one skb is one
  // transaction).
  void ReserveSend(size_t bytes);
  int SendIov(const struct iovec* iov, size_t n);
  // Receives one datagram; returns its length or -errno.
  ssize_t Recv(std::vector<char>& buf);
  // Sends one request (dump or get) and runs cb for each reply; 0 or a positive errno.
  int Talk(nlmsghdr* nlh, const std::function<void(const nlmsghdr*)>& cb);

 private:
  mnl_socket* sock_ = nullptr;
  uint32_t portid_ = 0, seq_ = 0;
  std::vector<char> rx_;
};

}  // namespace capstan::nft
