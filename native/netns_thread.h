// Runs a function with the calling thread's network namespace untouched: when a namespace
// path is given, a short-lived thread setns()es into it, runs the function (netlink sockets
// opened there belong to that namespace, and so does /proc/sys/net as that thread sees it),
// and exits, so no pool thread is ever left in a foreign namespace.
#pragma once
#include <functional>
#include <string>

namespace capstan {

// Throws OpError (errno of open/setns) if the namespace cannot be entered.
void RunInNetns(const std::string& netnsPath, const std::function<void()>& fn);

}  // namespace capstan
