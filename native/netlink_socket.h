// One rtnetlink socket (libmnl) in the namespace of the thread that opened it, with the
// request/ack and dump loops.
#pragma once
#include <libmnl/libmnl.h>
#include <linux/netlink.h>

#include <functional>
#include <string>
#include <vector>

// libmnl's iteration macros assign void* (fine in C, not in C++); these are the same loops
// with the casts spelled out.
#define CAPSTAN_ATTR_FOR_EACH(attr, nlh, offset)                                              \
  for ((attr) = static_cast<const nlattr*>(mnl_nlmsg_get_payload_offset((nlh), (offset)));   \
       mnl_attr_ok((attr), static_cast<int>(static_cast<const char*>(mnl_nlmsg_get_payload_tail(nlh)) - \
                                            reinterpret_cast<const char*>(attr)));                        \
       (attr) = mnl_attr_next(attr))
#define CAPSTAN_ATTR_FOR_EACH_NESTED(attr, nest)                                              \
  for ((attr) = static_cast<const nlattr*>(mnl_attr_get_payload(nest));                       \
       mnl_attr_ok((attr), static_cast<int>(static_cast<const char*>(mnl_attr_get_payload(nest)) +     \
                                            mnl_attr_get_payload_len(nest) -                          \
                                            reinterpret_cast<const char*>(attr)));                    \
       (attr) = mnl_attr_next(attr))

namespace capstan::nl {

class Socket {
 public:
  Socket();  // throws OpError
  ~Socket();
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;

  // Starts a message in the scratch buffer with a fresh sequence number.
  nlmsghdr* Begin(uint16_t type, uint16_t flags);
  // Sends the message and waits for its ack; returns 0 or a positive errno and fills `message`
  // from the kernel's extended ack when there is one.
  int Request(nlmsghdr* nlh, std::string* message);
  // Sends a dump request and calls onMsg for every reply; returns 0 or a positive errno.
  int Dump(nlmsghdr* nlh, const std::function<void(const nlmsghdr*)>& onMsg);

 private:
  int Receive(uint32_t seq, const std::function<void(const nlmsghdr*)>* onMsg, std::string* message);
  mnl_socket* sock_ = nullptr;
  uint32_t portid_ = 0;
  uint32_t seq_ = 0;
  std::vector<char> tx_, rx_;
};

}  // namespace capstan::nl
