// One nftables transaction: every operation becomes one or more messages between
// BATCH_BEGIN and BATCH_END in a single sendmsg, so the kernel commits all or nothing.
#include <errno.h>
#include <cstdio>
#include <cstdint>
#include <libnftnl/batch.h>
#include <libnftnl/chain.h>
#include <libnftnl/common.h>
#include <libnftnl/rule.h>
#include <libnftnl/set.h>
#include <libnftnl/table.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>

#include <endian.h>
#include <memory>
#include <optional>

#include "nft_expr_attrs.h"
#include "nft_ops.h"
#include "nft_socket.h"
#include "op_error.h"

namespace capstan::nft {

namespace {

// The kernel keeps NFTA_SET_ELEM_LIST_ELEMENTS under a 16-bit attribute length, so big
// element lists go out as several messages.
constexpr size_t kElemChunkBytes = 32 * 1024;

template <typename T, void (*Free)(const T*)>
struct Owned {
  T* p;
  explicit Owned(T* x) : p(x) {
    if (!p) throw OpError(ENOMEM, "libnftnl allocation failed");
  }
  ~Owned() { Free(p); }
  T* operator->() const { return p; }
};
using Table = Owned<nftnl_table, nftnl_table_free>;
using Chain = Owned<nftnl_chain, nftnl_chain_free>;
using Rule = Owned<nftnl_rule, nftnl_rule_free>;
using Set = Owned<nftnl_set, nftnl_set_free>;

class BatchBuilder {
 public:
  BatchBuilder(Socket& sock, std::optional<uint32_t> generation) : sock_(sock), batch_(nftnl_batch_alloc(256 * 1024, 128 * 1024)) {
    if (!batch_) throw OpError(ENOMEM, "libnftnl batch allocation failed");
    begin_ = sock_.NextSeq();
    nlmsghdr* h = nftnl_batch_begin(static_cast<char*>(nftnl_batch_buffer(batch_)), begin_);
    // The kernel refuses the batch (ERESTART) unless the ruleset is still at this generation,
    // so the commit makes exactly the next one.
    if (generation) mnl_attr_put_u32(h, NFNL_BATCH_GENID, htobe32(*generation));
    nftnl_batch_update(batch_);
  }
  ~BatchBuilder() { nftnl_batch_free(batch_); }

  nlmsghdr* Header(uint16_t type, uint32_t family, uint16_t flags, long opIndex) {
    uint32_t seq = sock_.NextSeq();
    if (opOfMsg_.empty()) first_ = seq;
    opOfMsg_.push_back(opIndex);
    last_ = seq;
    return nftnl_nlmsg_build_hdr(static_cast<char*>(nftnl_batch_buffer(batch_)), type,
                                 static_cast<uint16_t>(family), flags, seq);
  }
  void Done() { nftnl_batch_update(batch_); }

  void Finish() {
    nftnl_batch_end(static_cast<char*>(nftnl_batch_buffer(batch_)), sock_.NextSeq());
    nftnl_batch_update(batch_);
  }

  nftnl_batch* batch() { return batch_; }
  uint32_t begin() const { return begin_; }
  uint32_t last() const { return last_; }
  long OpOf(uint32_t seq) const {
    if (opOfMsg_.empty() || seq < first_ || seq > last_) return -1;
    return opOfMsg_[seq - first_];
  }
  size_t Messages() const { return opOfMsg_.size(); }

 private:
  Socket& sock_;
  nftnl_batch* batch_;
  uint32_t begin_ = 0, first_ = 0, last_ = 0;
  std::vector<long> opOfMsg_;
};

uint16_t CreateFlags(const Op& op) { return NLM_F_CREATE | (op.exclusive ? NLM_F_EXCL : 0); }

void PutTable(BatchBuilder& b, const Op& op, long i) {
  Table t(nftnl_table_alloc());
  nftnl_table_set_str(t.p, NFTNL_TABLE_NAME, op.table.c_str());
  nftnl_table_set_u32(t.p, NFTNL_TABLE_FAMILY, op.family);
  bool add = op.kind == OpKind::AddTable;
  if (add && op.tableFlags) nftnl_table_set_u32(t.p, NFTNL_TABLE_FLAGS, op.tableFlags);
  nlmsghdr* h = b.Header(add ? NFT_MSG_NEWTABLE : NFT_MSG_DELTABLE, op.family, add ? CreateFlags(op) : 0, i);
  nftnl_table_nlmsg_build_payload(h, t.p);
  b.Done();
}

void PutChain(BatchBuilder& b, const Op& op, long i) {
  Chain c(nftnl_chain_alloc());
  nftnl_chain_set_str(c.p, NFTNL_CHAIN_TABLE, op.table.c_str());
  nftnl_chain_set_str(c.p, NFTNL_CHAIN_NAME, op.name.c_str());
  nftnl_chain_set_u32(c.p, NFTNL_CHAIN_FAMILY, op.family);
  bool add = op.kind == OpKind::AddChain;
  if (add && op.hook) {
    nftnl_chain_set_u32(c.p, NFTNL_CHAIN_HOOKNUM, *op.hook);
    nftnl_chain_set_s32(c.p, NFTNL_CHAIN_PRIO, op.priority.value_or(0));
    nftnl_chain_set_str(c.p, NFTNL_CHAIN_TYPE, op.chainType.value_or("filter").c_str());
  }
  if (add && op.policy) nftnl_chain_set_u32(c.p, NFTNL_CHAIN_POLICY, *op.policy);
  nlmsghdr* h = b.Header(add ? NFT_MSG_NEWCHAIN : NFT_MSG_DELCHAIN, op.family, add ? CreateFlags(op) : 0, i);
  nftnl_chain_nlmsg_build_payload(h, c.p);
  b.Done();
}

void PutRule(BatchBuilder& b, const Op& op, long i) {
  Rule r(nftnl_rule_alloc());
  nftnl_rule_set_str(r.p, NFTNL_RULE_TABLE, op.table.c_str());
  nftnl_rule_set_str(r.p, NFTNL_RULE_CHAIN, op.chain.c_str());
  nftnl_rule_set_u32(r.p, NFTNL_RULE_FAMILY, op.family);
  uint16_t type = NFT_MSG_DELRULE, flags = 0;
  if (op.kind == OpKind::AddRule) {
    type = NFT_MSG_NEWRULE;
    flags = NLM_F_CREATE | NLM_F_APPEND;
    if (op.position) nftnl_rule_set_u64(r.p, NFTNL_RULE_POSITION, *op.position);
    if (op.userdata) nftnl_rule_set_data(r.p, NFTNL_RULE_USERDATA, op.userdata->data(), op.userdata->size());
    for (const Expr& e : op.exprs) {
      nftnl_expr* x = BuildExpr(e);
      if (!x) throw OpError(EINVAL, "unknown expression " + e.name, i, "NftError");
      nftnl_rule_add_expr(r.p, x);
    }
  } else if (op.kind == OpKind::DelRule) {
    nftnl_rule_set_u64(r.p, NFTNL_RULE_HANDLE, *op.handle);
  }  // FlushChain: a DELRULE naming only the chain
  nlmsghdr* h = b.Header(type, op.family, flags, i);
  nftnl_rule_nlmsg_build_payload(h, r.p);
  b.Done();
}

void PutSet(BatchBuilder& b, const Op& op, long i) {
  Set s(nftnl_set_alloc());
  nftnl_set_set_str(s.p, NFTNL_SET_TABLE, op.table.c_str());
  nftnl_set_set_str(s.p, NFTNL_SET_NAME, op.name.c_str());
  nftnl_set_set_u32(s.p, NFTNL_SET_FAMILY, op.family);
  if (op.kind == OpKind::FlushSet) {
    nlmsghdr* h = b.Header(NFT_MSG_DELSETELEM, op.family, 0, i);
    nftnl_set_elems_nlmsg_build_payload(h, s.p);
    b.Done();
    return;
  }
  bool add = op.kind == OpKind::AddSet;
  if (add) {
    nftnl_set_set_u32(s.p, NFTNL_SET_FLAGS, op.setFlags);
    nftnl_set_set_u32(s.p, NFTNL_SET_KEY_TYPE, op.keyType);
    nftnl_set_set_u32(s.p, NFTNL_SET_KEY_LEN, op.keyLen);
    nftnl_set_set_u32(s.p, NFTNL_SET_ID, static_cast<uint32_t>(i + 1));
    if (op.dataType) nftnl_set_set_u32(s.p, NFTNL_SET_DATA_TYPE, *op.dataType);
    if (op.dataLen) nftnl_set_set_u32(s.p, NFTNL_SET_DATA_LEN, *op.dataLen);
    if (op.size) nftnl_set_set_u32(s.p, NFTNL_SET_DESC_SIZE, *op.size);
  }
  nlmsghdr* h = b.Header(add ? NFT_MSG_NEWSET : NFT_MSG_DELSET, op.family, add ? CreateFlags(op) : 0, i);
  nftnl_set_nlmsg_build_payload(h, s.p);
  b.Done();
}

void PutElements(BatchBuilder& b, const Op& op, long i) {
  bool add = op.kind == OpKind::AddElements;
  size_t next = 0;
  do {
    Set s(nftnl_set_alloc());
    nftnl_set_set_str(s.p, NFTNL_SET_TABLE, op.table.c_str());
    nftnl_set_set_str(s.p, NFTNL_SET_NAME, op.name.c_str());
    nftnl_set_set_u32(s.p, NFTNL_SET_FAMILY, op.family);
    size_t bytes = 0;
    for (; next < op.elements.size() && bytes < kElemChunkBytes; next++) {
      const Element& el = op.elements[next];
      nftnl_set_elem* e = nftnl_set_elem_alloc();
      if (!e) throw OpError(ENOMEM, "libnftnl allocation failed");
      nftnl_set_elem_set(e, NFTNL_SET_ELEM_KEY, el.key.data(), static_cast<uint32_t>(el.key.size()));
      if (el.flags) nftnl_set_elem_set_u32(e, NFTNL_SET_ELEM_FLAGS, el.flags);
      if (add && el.timeout) nftnl_set_elem_set_u64(e, NFTNL_SET_ELEM_TIMEOUT, *el.timeout);
      if (add && el.expiration) nftnl_set_elem_set_u64(e, NFTNL_SET_ELEM_EXPIRATION, *el.expiration);
      if (el.verdict) {
        nftnl_set_elem_set_u32(e, NFTNL_SET_ELEM_VERDICT, static_cast<uint32_t>(*el.verdict));
        if (!el.chain.empty()) nftnl_set_elem_set_str(e, NFTNL_SET_ELEM_CHAIN, el.chain.c_str());
      } else if (el.data) {
        nftnl_set_elem_set(e, NFTNL_SET_ELEM_DATA, el.data->data(), static_cast<uint32_t>(el.data->size()));
      }
      nftnl_set_elem_add(s.p, e);
      bytes += 64 + el.key.size() + el.chain.size() + (el.data ? el.data->size() : 0);
    }
    nlmsghdr* h = b.Header(add ? NFT_MSG_NEWSETELEM : NFT_MSG_DELSETELEM, op.family,
                           add ? CreateFlags(op) : 0, i);
    nftnl_set_elems_nlmsg_build_payload(h, s.p);
    b.Done();
  } while (next < op.elements.size());
}

// Reads replies until the last message's ack (or error) arrives; returns the first error.
OpError CollectErrors(Socket& sock, const BatchBuilder& b) {
  std::vector<char> buf(512 * 1024);
  OpError first;
  for (;;) {
    ssize_t n = sock.Recv(buf);
    if (n < 0) {
      // ENOBUFS: so many messages failed that their errors overflowed the socket; the
      // transaction was still aborted as a whole.
      if (first.err) return first;
      return OpError(static_cast<int>(-n), "reading the nftables transaction result: " + ErrnoMessage(static_cast<int>(-n)), -1, "NftError");
    }
    int len = static_cast<int>(n);
    const nlmsghdr* m = reinterpret_cast<const nlmsghdr*>(buf.data());
    for (; mnl_nlmsg_ok(m, len); m = mnl_nlmsg_next(m, &len)) {
      if (m->nlmsg_type != NLMSG_ERROR || m->nlmsg_pid != sock.PortId()) continue;
      int err = -static_cast<const nlmsgerr*>(mnl_nlmsg_get_payload(m))->error;
      if (err && !first.err) {
        long idx = b.OpOf(m->nlmsg_seq);
        std::string where = idx >= 0 ? "operation " + std::to_string(idx) : "the transaction";
        first = OpError(err, where + " failed: " + ErrnoMessage(err), idx, "NftError");
      }
      if (m->nlmsg_seq == b.last() || m->nlmsg_seq == b.begin()) return first;
    }
  }
}

// Only the last real message asks for an ack: errors for earlier ones arrive before it,
// and a successful transaction costs a single reply.
void RequestAckOnLast(std::vector<struct iovec>& iov, uint32_t lastSeq) {
  for (auto& v : iov) {
    auto* m = static_cast<nlmsghdr*>(v.iov_base);
    int len = static_cast<int>(v.iov_len);
    for (; mnl_nlmsg_ok(m, len); m = mnl_nlmsg_next(m, &len)) {
      if (m->nlmsg_seq == lastSeq) {
        m->nlmsg_flags |= NLM_F_ACK;
        return;
      }
    }
  }
}

}  // namespace

void Apply(const std::vector<Op>& ops, std::optional<uint32_t> generation) {
  if (ops.empty()) return;
  Socket sock;
  BatchBuilder b(sock, generation);
  for (size_t i = 0; i < ops.size(); i++) {
    const Op& op = ops[i];
    long idx = static_cast<long>(i);
    switch (op.kind) {
      case OpKind::AddTable: case OpKind::DelTable: PutTable(b, op, idx); break;
      case OpKind::AddChain: case OpKind::DelChain: PutChain(b, op, idx); break;
      case OpKind::AddRule: case OpKind::DelRule: case OpKind::FlushChain: PutRule(b, op, idx); break;
      case OpKind::AddSet: case OpKind::DelSet: case OpKind::FlushSet: PutSet(b, op, idx); break;
      case OpKind::AddElements: case OpKind::DelElements: PutElements(b, op, idx); break;
    }
  }
  b.Finish();

  int iovLen = nftnl_batch_iovec_len(b.batch());
  std::vector<struct iovec> iov(iovLen);
  nftnl_batch_iovec(b.batch(), iov.data(), iovLen);
  size_t total = 0;
  for (auto& v : iov) total += v.iov_len;
  RequestAckOnLast(iov, b.last());
  sock.ReserveSend(total);
  if (int e = sock.SendIov(iov.data(), iov.size()))
    throw OpError(e, "sending the nftables transaction: " + ErrnoMessage(e), -1, "NftError");
  OpError err = CollectErrors(sock, b);
  if (err.err) throw err;
}

}  // namespace capstan::nft
