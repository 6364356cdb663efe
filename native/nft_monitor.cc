// NftMonitor: nftables' change notifications (NFNLGRP_NFTABLES) for one table, so a service
// proxy can tell whether anyone else changed its table without dumping it (a set dump is
// quadratic in the kernel: each 32 KB read re-walks the set from its start).
//
// The kernel sends, for every committed transaction, one message per object it changed
// (table, chain, rule, set, element) followed by NFT_MSG_NEWGEN carrying the generation the
// commit made. Messages are drained on demand on a pool thread and summarised per
// transaction: only transactions that touched the watched table are returned, with the
// names of the sets whose elements changed and whether anything else (a chain, rule, set,
// the table) changed. An overflowed receive buffer (ENOBUFS) means notifications were lost:
// `lost` tells the caller to trust nothing and read the table back.
#include <endian.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "async_task.h"
#include "js_args.h"
#include "netns_thread.h"
#include "op_error.h"

namespace capstan {

namespace {

struct Touch {
  uint32_t generation = 0;
  std::set<std::string> sets;  // sets whose elements changed
  bool other = false;          // a table, chain, rule or set object changed
};

struct Drained {
  bool lost = false;
  std::vector<Touch> touched;
};

// Shared by the JS object and in-flight drains, so close() during a drain is safe.
struct MonitorState {
  std::mutex mu;
  int fd = -1;
  uint32_t family = 0;
  std::string table;
  // The transaction being read: its messages arrived, its NEWGEN not yet.
  Touch pending;
  bool pendingTouched = false;
  bool lost = false;
};

template <typename F>
void ForEachAttr(const nlmsghdr* m, F f) {
  auto* a = static_cast<const nlattr*>(mnl_nlmsg_get_payload_offset(m, sizeof(nfgenmsg)));
  const char* end = static_cast<const char*>(mnl_nlmsg_get_payload_tail(m));
  for (; mnl_attr_ok(a, static_cast<int>(end - reinterpret_cast<const char*>(a))); a = mnl_attr_next(a)) f(a);
}

// The first attribute of every nf_tables object message is its table's name, the second
// (for elements) the set's.
void Classify(MonitorState& st, const nlmsghdr* m, Drained& out) {
  if (NFNL_SUBSYS_ID(m->nlmsg_type) != NFNL_SUBSYS_NFTABLES) return;
  uint16_t type = NFNL_MSG_TYPE(m->nlmsg_type);
  if (type == NFT_MSG_NEWGEN) {
    uint32_t gen = 0;
    ForEachAttr(m, [&](const nlattr* a) {
      if (mnl_attr_get_type(a) == NFTA_GEN_ID && mnl_attr_get_payload_len(a) >= 4) gen = be32toh(mnl_attr_get_u32(a));
    });
    if (st.pendingTouched) {
      st.pending.generation = gen;
      out.touched.push_back(std::move(st.pending));
    }
    st.pending = Touch();
    st.pendingTouched = false;
    return;
  }
  const auto* g = static_cast<const nfgenmsg*>(mnl_nlmsg_get_payload(m));
  if (g->nfgen_family != st.family) return;
  const char* table = nullptr;
  const char* set = nullptr;
  ForEachAttr(m, [&](const nlattr* a) {
    uint16_t t = mnl_attr_get_type(a);
    if ((t == 1 || t == 2) && mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0) (t == 1 ? table : set) = mnl_attr_get_str(a);
  });
  if (!table || st.table != table) return;
  st.pendingTouched = true;
  if ((type == NFT_MSG_NEWSETELEM || type == NFT_MSG_DELSETELEM) && set) {
    st.pending.sets.insert(set);
  } else {
    st.pending.other = true;
  }
}

Drained Drain(MonitorState& st) {
  std::lock_guard<std::mutex> lock(st.mu);
  Drained out;
  if (st.fd < 0) throw OpError(EBADF, "the nftables monitor is closed");
  std::vector<char> buf(1 << 20);
  for (;;) {
    ssize_t n = recv(st.fd, buf.data(), buf.size(), MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      if (errno == ENOBUFS) {
        // Some notifications were dropped: what the pending transaction did is unknown too.
        st.lost = true;
        st.pending = Touch();
        st.pendingTouched = false;
        continue;
      }
      throw OpError(errno, "reading nftables notifications: " + ErrnoMessage(errno));
    }
    int len = static_cast<int>(n);
    for (auto* m = reinterpret_cast<const nlmsghdr*>(buf.data()); mnl_nlmsg_ok(m, len); m = mnl_nlmsg_next(m, &len)) {
      Classify(st, m, out);
    }
  }
  out.lost = st.lost;
  st.lost = false;
  return out;
}

int OpenSocket(size_t rcvBytes) {
  int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER);
  if (fd < 0) throw OpError(errno, "nfnetlink socket: " + ErrnoMessage(errno));
  // Our own big transactions notify an element at a time; room for them between drains.
  int rcv = static_cast<int>(rcvBytes);
  setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcv, sizeof rcv);
  sockaddr_nl snl = {};
  snl.nl_family = AF_NETLINK;
  int group = NFNLGRP_NFTABLES;
  if (bind(fd, reinterpret_cast<sockaddr*>(&snl), sizeof snl) < 0 ||
      setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &group, sizeof group) < 0) {
    int e = errno;
    close(fd);
    throw OpError(e, "subscribing to nftables notifications: " + ErrnoMessage(e));
  }
  return fd;
}

// new NftMonitor(netns: string | null, family: number, table: string, receiveBytes: number)
class NftMonitor : public Napi::ObjectWrap<NftMonitor> {
 public:
  static Napi::Function Init(Napi::Env env) {
    return DefineClass(env, "NftMonitor", {
        InstanceMethod("drain", &NftMonitor::DrainJs),
        InstanceMethod("close", &NftMonitor::Close),
    });
  }

  NftMonitor(const Napi::CallbackInfo& info) : Napi::ObjectWrap<NftMonitor>(info), st_(std::make_shared<MonitorState>()) {
    Napi::Env env = info.Env();
    if (info.Length() < 4 || !info[1].IsNumber() || !info[2].IsString() || !info[3].IsNumber()) {
      throw Napi::TypeError::New(env, "new NftMonitor(netns: string | null, family: number, table: string, receiveBytes: number)");
    }
    std::string netns = js::NetnsArg(info, 0);
    st_->family = info[1].As<Napi::Number>().Uint32Value();
    st_->table = info[2].As<Napi::String>().Utf8Value();
    double rcv = info[3].As<Napi::Number>().DoubleValue();
    if (!(rcv >= 65536 && rcv <= 1 << 30)) throw Napi::TypeError::New(env, "receiveBytes must be between 64 KiB and 1 GiB");
    try {
      // The socket belongs to the namespace it is opened in, whatever thread reads it later.
      RunInNetns(netns, [&] { st_->fd = OpenSocket(static_cast<size_t>(rcv)); });
    } catch (const OpError& e) {
      throw Napi::Error(env, e.ToJs(env));
    }
  }

  ~NftMonitor() override { CloseFd(); }

 private:
  // drain(): Promise<{ lost: boolean, touched: { generation, sets: string[], other }[] }>
  Napi::Value DrainJs(const Napi::CallbackInfo& info) {
    auto st = st_;
    return AsyncTask<Drained>::Start(
        info.Env(), "capstan.nftMonitorDrain", [st]() { return Drain(*st); },
        [](Napi::Env env, Drained& d) -> Napi::Value {
          Napi::Object o = Napi::Object::New(env);
          o.Set("lost", d.lost);
          Napi::Array touched = Napi::Array::New(env, d.touched.size());
          for (size_t i = 0; i < d.touched.size(); i++) {
            Napi::Object t = Napi::Object::New(env);
            t.Set("generation", static_cast<double>(d.touched[i].generation));
            Napi::Array sets = Napi::Array::New(env, d.touched[i].sets.size());
            uint32_t k = 0;
            for (const std::string& s : d.touched[i].sets) sets.Set(k++, s);
            t.Set("sets", sets);
            t.Set("other", d.touched[i].other);
            touched.Set(static_cast<uint32_t>(i), t);
          }
          o.Set("touched", touched);
          return o;
        });
  }

  Napi::Value Close(const Napi::CallbackInfo& info) {
    CloseFd();
    return info.Env().Undefined();
  }

  void CloseFd() {
    std::lock_guard<std::mutex> lock(st_->mu);
    if (st_->fd >= 0) close(st_->fd);
    st_->fd = -1;
  }

  std::shared_ptr<MonitorState> st_;
};

}  // namespace

void InitNftMonitor(Napi::Env env, Napi::Object exports) { exports.Set("NftMonitor", NftMonitor::Init(env)); }

}  // namespace capstan
