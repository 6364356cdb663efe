// Executors for each family of rtnetlink operation; each returns 0 or a positive errno.
#pragma once
#include "netlink_ops.h"
#include "netlink_socket.h"

namespace capstan::nl {

// if_nametoindex in the calling thread's namespace; 0 when absent.
uint32_t IndexOf(const std::string& name);
std::string NameOf(uint32_t index);

int ExecLink(Socket& s, const Op& op, Result& r);
int ExecAddr(Socket& s, const Op& op, Result& r);
int ExecRoute(Socket& s, const Op& op, Result& r);
int ExecNeigh(Socket& s, const Op& op, Result& r);
int ExecSysctl(const Op& op, Result& r);

}  // namespace capstan::nl
