// Reads one table back: chains, rules (low-level expressions), sets and their elements.
#include <errno.h>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <libnftnl/chain.h>
#include <libnftnl/common.h>
#include <libnftnl/gen.h>
#include <libnftnl/rule.h>
#include <libnftnl/set.h>
#include <libnftnl/table.h>
#include <linux/netfilter/nf_tables.h>

#include "nft_expr_attrs.h"
#include "nft_ops.h"
#include "nft_socket.h"
#include "op_error.h"

namespace capstan::nft {

namespace {

OpError ListError(int err, const std::string& what) {
  return OpError(err, "listing " + what + ": " + ErrnoMessage(err), -1, "NftError");
}

void ReadTable(Socket& sock, TableState& st) {
  nftnl_table* t = nftnl_table_alloc();
  nftnl_table_set_str(t, NFTNL_TABLE_NAME, st.name.c_str());
  char buf[MNL_SOCKET_BUFFER_SIZE];
  nlmsghdr* h = nftnl_nlmsg_build_hdr(buf, NFT_MSG_GETTABLE, static_cast<uint16_t>(st.family), 0, sock.NextSeq());
  nftnl_table_nlmsg_build_payload(h, t);
  nftnl_table_free(t);
  int err = sock.Talk(h, [&](const nlmsghdr* m) {
    nftnl_table* r = nftnl_table_alloc();
    if (nftnl_table_nlmsg_parse(m, r) == 0 && nftnl_table_is_set(r, NFTNL_TABLE_FLAGS))
      st.flags = nftnl_table_get_u32(r, NFTNL_TABLE_FLAGS);
    nftnl_table_free(r);
  });
  if (err) throw ListError(err, "table " + st.name);
}

void ReadChains(Socket& sock, TableState& st) {
  char buf[MNL_SOCKET_BUFFER_SIZE];
  nlmsghdr* h = nftnl_nlmsg_build_hdr(buf, NFT_MSG_GETCHAIN, static_cast<uint16_t>(st.family), NLM_F_DUMP, sock.NextSeq());
  int err = sock.Talk(h, [&](const nlmsghdr* m) {
    nftnl_chain* c = nftnl_chain_alloc();
    if (nftnl_chain_nlmsg_parse(m, c) == 0 && st.name == nftnl_chain_get_str(c, NFTNL_CHAIN_TABLE)) {
      ChainState cs;
      cs.name = nftnl_chain_get_str(c, NFTNL_CHAIN_NAME);
      cs.handle = nftnl_chain_get_u64(c, NFTNL_CHAIN_HANDLE);
      if (nftnl_chain_is_set(c, NFTNL_CHAIN_USE)) cs.use = nftnl_chain_get_u32(c, NFTNL_CHAIN_USE);
      if (nftnl_chain_is_set(c, NFTNL_CHAIN_HOOKNUM)) {
        cs.hook = nftnl_chain_get_u32(c, NFTNL_CHAIN_HOOKNUM);
        cs.priority = nftnl_chain_get_s32(c, NFTNL_CHAIN_PRIO);
      }
      if (nftnl_chain_is_set(c, NFTNL_CHAIN_TYPE)) cs.type = nftnl_chain_get_str(c, NFTNL_CHAIN_TYPE);
      if (nftnl_chain_is_set(c, NFTNL_CHAIN_POLICY)) cs.policy = nftnl_chain_get_u32(c, NFTNL_CHAIN_POLICY);
      st.chains.push_back(std::move(cs));
    }
    nftnl_chain_free(c);
  });
  if (err) throw ListError(err, "chains");
}

int CollectExpr(nftnl_expr* e, void* data) {
  static_cast<RuleState*>(data)->exprs.push_back(ReadExpr(e));
  return 0;
}

void ReadRules(Socket& sock, TableState& st) {
  char buf[MNL_SOCKET_BUFFER_SIZE];
  nlmsghdr* h = nftnl_nlmsg_build_hdr(buf, NFT_MSG_GETRULE, static_cast<uint16_t>(st.family), NLM_F_DUMP, sock.NextSeq());
  nftnl_rule* filter = nftnl_rule_alloc();
  nftnl_rule_set_str(filter, NFTNL_RULE_TABLE, st.name.c_str());
  nftnl_rule_nlmsg_build_payload(h, filter);
  nftnl_rule_free(filter);
  int err = sock.Talk(h, [&](const nlmsghdr* m) {
    nftnl_rule* r = nftnl_rule_alloc();
    if (nftnl_rule_nlmsg_parse(m, r) == 0 && st.name == nftnl_rule_get_str(r, NFTNL_RULE_TABLE)) {
      RuleState rs;
      rs.chain = nftnl_rule_get_str(r, NFTNL_RULE_CHAIN);
      rs.handle = nftnl_rule_get_u64(r, NFTNL_RULE_HANDLE);
      if (nftnl_rule_is_set(r, NFTNL_RULE_USERDATA)) {
        uint32_t len = 0;
        auto* p = static_cast<const uint8_t*>(nftnl_rule_get_data(r, NFTNL_RULE_USERDATA, &len));
        rs.userdata.assign(p, p + len);
      }
      nftnl_expr_foreach(r, CollectExpr, &rs);
      st.rules.push_back(std::move(rs));
    }
    nftnl_rule_free(r);
  });
  if (err) throw ListError(err, "rules");
}

void ReadElement(nftnl_set_elem* e, Element& el) {
  uint32_t len = 0;
  auto* key = static_cast<const uint8_t*>(nftnl_set_elem_get(e, NFTNL_SET_ELEM_KEY, &len));
  if (key) el.key.assign(key, key + len);
  if (nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_FLAGS)) el.flags = nftnl_set_elem_get_u32(e, NFTNL_SET_ELEM_FLAGS);
  if (nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_TIMEOUT)) el.timeout = nftnl_set_elem_get_u64(e, NFTNL_SET_ELEM_TIMEOUT);
  if (nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_EXPIRATION)) el.expiration = nftnl_set_elem_get_u64(e, NFTNL_SET_ELEM_EXPIRATION);
  if (nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_VERDICT)) {
    el.verdict = static_cast<int32_t>(nftnl_set_elem_get_u32(e, NFTNL_SET_ELEM_VERDICT));
    if (nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_CHAIN)) el.chain = nftnl_set_elem_get_str(e, NFTNL_SET_ELEM_CHAIN);
  } else if (nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_DATA)) {
    auto* d = static_cast<const uint8_t*>(nftnl_set_elem_get(e, NFTNL_SET_ELEM_DATA, &len));
    el.data = std::vector<uint8_t>(d, d + len);
  }
}

// Appends one element to fixed-width columns (keys and data padded or cut to the set's
// lengths, which the kernel enforces anyway).
void AppendColumns(nftnl_set_elem* e, const SetState& ss, ElementColumns& c) {
  uint32_t len = 0;
  auto put = [](std::vector<uint8_t>& to, const void* from, uint32_t have, uint32_t width) {
    size_t at = to.size();
    to.resize(at + width, 0);
    if (from) memcpy(to.data() + at, from, have < width ? have : width);
  };
  const void* key = nftnl_set_elem_get(e, NFTNL_SET_ELEM_KEY, &len);  // sets len: not in the call below
  put(c.keys, key, key ? len : 0, ss.keyLen);
  if (ss.dataLen && !nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_VERDICT)) {
    len = 0;
    const void* d = nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_DATA) ? nftnl_set_elem_get(e, NFTNL_SET_ELEM_DATA, &len) : nullptr;
    put(c.data, d, d ? len : 0, *ss.dataLen);
  }
  if (ss.dataType && *ss.dataType == NFT_DATA_VERDICT) {
    bool v = nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_VERDICT);
    c.verdicts.push_back(v ? static_cast<int32_t>(nftnl_set_elem_get_u32(e, NFTNL_SET_ELEM_VERDICT)) : 0);
    c.chains.emplace_back(v && nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_CHAIN) ? nftnl_set_elem_get_str(e, NFTNL_SET_ELEM_CHAIN) : "");
  }
  auto ms = [&](uint16_t attr) { return nftnl_set_elem_is_set(e, attr) ? static_cast<double>(nftnl_set_elem_get_u64(e, attr)) : -1.0; };
  c.timeouts.push_back(ms(NFTNL_SET_ELEM_TIMEOUT));
  c.expires.push_back(ms(NFTNL_SET_ELEM_EXPIRATION));
  c.count++;
}

void ReadElements(Socket& sock, uint32_t family, const std::string& table, SetState& ss, bool columns) {
  nftnl_set* s = nftnl_set_alloc();
  nftnl_set_set_str(s, NFTNL_SET_TABLE, table.c_str());
  nftnl_set_set_str(s, NFTNL_SET_NAME, ss.name.c_str());
  char buf[MNL_SOCKET_BUFFER_SIZE];
  nlmsghdr* h = nftnl_nlmsg_build_hdr(buf, NFT_MSG_GETSETELEM, static_cast<uint16_t>(family), NLM_F_DUMP, sock.NextSeq());
  nftnl_set_elems_nlmsg_build_payload(h, s);
  int err = sock.Talk(h, [&](const nlmsghdr* m) { nftnl_set_elems_nlmsg_parse(m, s); });
  if (err) {
    nftnl_set_free(s);
    throw ListError(err, "elements of " + ss.name);
  }
  nftnl_set_elems_iter* it = nftnl_set_elems_iter_create(s);
  // iter_next returns the current element and then advances.
  while (nftnl_set_elem* e = nftnl_set_elems_iter_next(it)) {
    if (columns) {
      AppendColumns(e, ss, ss.columns);
      continue;
    }
    Element el;
    ReadElement(e, el);
    ss.elements.push_back(std::move(el));
  }
  nftnl_set_elems_iter_destroy(it);
  nftnl_set_free(s);
}

void ReadSets(Socket& sock, TableState& st, bool columns) {
  char buf[MNL_SOCKET_BUFFER_SIZE];
  nlmsghdr* h = nftnl_nlmsg_build_hdr(buf, NFT_MSG_GETSET, static_cast<uint16_t>(st.family), NLM_F_DUMP, sock.NextSeq());
  nftnl_set* filter = nftnl_set_alloc();
  nftnl_set_set_str(filter, NFTNL_SET_TABLE, st.name.c_str());
  nftnl_set_nlmsg_build_payload(h, filter);
  nftnl_set_free(filter);
  int err = sock.Talk(h, [&](const nlmsghdr* m) {
    nftnl_set* s = nftnl_set_alloc();
    if (nftnl_set_nlmsg_parse(m, s) == 0 && st.name == nftnl_set_get_str(s, NFTNL_SET_TABLE)) {
      SetState ss;
      ss.name = nftnl_set_get_str(s, NFTNL_SET_NAME);
      ss.handle = nftnl_set_get_u64(s, NFTNL_SET_HANDLE);
      ss.flags = nftnl_set_get_u32(s, NFTNL_SET_FLAGS);
      ss.keyType = nftnl_set_get_u32(s, NFTNL_SET_KEY_TYPE);
      ss.keyLen = nftnl_set_get_u32(s, NFTNL_SET_KEY_LEN);
      if (nftnl_set_is_set(s, NFTNL_SET_DATA_TYPE)) ss.dataType = nftnl_set_get_u32(s, NFTNL_SET_DATA_TYPE);
      if (nftnl_set_is_set(s, NFTNL_SET_DATA_LEN)) ss.dataLen = nftnl_set_get_u32(s, NFTNL_SET_DATA_LEN);
      st.sets.push_back(std::move(ss));
    }
    nftnl_set_free(s);
  });
  if (err) throw ListError(err, "sets");
  for (SetState& ss : st.sets) ReadElements(sock, st.family, st.name, ss, columns);
}

}  // namespace

uint32_t Generation() {
  Socket sock;
  char buf[MNL_SOCKET_BUFFER_SIZE];
  nlmsghdr* h = nftnl_nlmsg_build_hdr(buf, NFT_MSG_GETGEN, AF_UNSPEC, 0, sock.NextSeq());
  uint32_t id = 0;
  bool got = false;
  int err = sock.Talk(h, [&](const nlmsghdr* m) {
    nftnl_gen* g = nftnl_gen_alloc();
    if (nftnl_gen_nlmsg_parse(m, g) == 0 && nftnl_gen_is_set(g, NFTNL_GEN_ID)) {
      id = nftnl_gen_get_u32(g, NFTNL_GEN_ID);
      got = true;
    }
    nftnl_gen_free(g);
  });
  if (err) throw ListError(err, "the ruleset generation");
  if (!got) throw ListError(EPROTO, "the ruleset generation");
  return id;
}

TableState List(uint32_t family, const std::string& table, bool columns) {
  Socket sock;
  TableState st;
  st.name = table;
  st.family = family;
  ReadTable(sock, st);
  ReadChains(sock, st);
  ReadSets(sock, st, columns);
  ReadRules(sock, st);
  return st;
}

}  // namespace capstan::nft
