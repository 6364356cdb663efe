// Plain C++ descriptions of one nftables transaction and of a table read back from the
// kernel. Expressions stay low-level (libnftnl names and attributes): the typed rule
// vocabulary lives in TypeScript, which compiles to and decompiles from this form.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace capstan::nft {

enum class AttrKind { U8, U16, U32, I32, U64, Data, Str };

struct ExprAttr {
  uint16_t id;
  AttrKind kind;
  uint64_t num = 0;
  std::vector<uint8_t> data;
  std::string str;
};

struct Expr {
  std::string name;
  std::vector<std::pair<std::string, ExprAttr>> attrs;  // JS key → value
};

struct Element {
  std::vector<uint8_t> key;
  std::optional<std::vector<uint8_t>> data;
  std::optional<int32_t> verdict;
  std::string chain;
  uint32_t flags = 0;
  // Milliseconds; only for sets with the timeout flag. expiration < timeout makes an
  // element lapse early: how the proxy retires elements without a deleting transaction.
  std::optional<uint64_t> timeout, expiration;
};

enum class OpKind {
  AddTable, DelTable, AddChain, DelChain, FlushChain, AddRule, DelRule,
  AddSet, DelSet, FlushSet, AddElements, DelElements,
};

struct Op {
  OpKind kind;
  uint32_t family = 0;
  std::string table, name;  // name: chain or set
  std::string chain;        // rules
  bool exclusive = false;
  uint32_t tableFlags = 0;
  // base chains
  std::optional<std::string> chainType;
  std::optional<uint32_t> hook, policy;
  std::optional<int32_t> priority;
  // rules
  std::vector<Expr> exprs;
  std::optional<uint64_t> handle, position;
  std::optional<std::vector<uint8_t>> userdata;
  // sets
  uint32_t setFlags = 0, keyType = 0, keyLen = 0;
  std::optional<uint32_t> dataType, dataLen, size;
  std::vector<Element> elements;
};

struct ChainState {
  std::string name, type;
  uint64_t handle = 0;
  std::optional<uint32_t> hook, policy;
  std::optional<int32_t> priority;
  uint32_t use = 0;
};

struct RuleState {
  std::string chain;
  uint64_t handle = 0;
  std::vector<Expr> exprs;
  std::vector<uint8_t> userdata;
};

// A set's elements in columns, for read-backs of hundreds of thousands of elements: no
// object per element on either side of the addon.
struct ElementColumns {
  uint32_t count = 0;
  std::vector<uint8_t> keys, data;  // count × keyLen, count × dataLen (data maps)
  std::vector<int32_t> verdicts;    // verdict maps: the code of each element
  std::vector<std::string> chains;  // verdict maps: the chain of each element, or ""
  std::vector<double> timeouts, expires;  // ms, -1 where the element has none
};

struct SetState {
  std::string name;
  uint64_t handle = 0;
  uint32_t flags = 0, keyType = 0, keyLen = 0;
  std::optional<uint32_t> dataType, dataLen;
  std::vector<Element> elements;
  ElementColumns columns;  // instead of `elements` when listed in columns
};

struct TableState {
  std::string name;
  uint32_t family = 0, flags = 0;
  std::vector<ChainState> chains;
  std::vector<RuleState> rules;
  std::vector<SetState> sets;
};

// One atomic transaction; throws OpError whose index names the failing operation. With a
// generation, the kernel refuses it with ERESTART unless the ruleset is still at it.
void Apply(const std::vector<Op>& ops, std::optional<uint32_t> generation = std::nullopt);
// Throws OpError(ENOENT) if the table does not exist. `columns`: elements go to
// SetState::columns instead of SetState::elements.
TableState List(uint32_t family, const std::string& table, bool columns = false);
/** The ruleset generation: the kernel bumps it on every committed transaction, any table's. */
uint32_t Generation();

}  // namespace capstan::nft
