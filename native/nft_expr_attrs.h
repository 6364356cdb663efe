// The table of libnftnl expression attributes the addon passes through, by JS key. The
// expression name travels as `type`, so attributes libnftnl calls TYPE get prefixed keys
// (ngType, natType, rejectType).
#pragma once
#include <cstdio>
#include <cstdint>
#include <libnftnl/expr.h>

#include <string>
#include <vector>

#include "nft_ops.h"

namespace capstan::nft {

struct AttrSpec {
  const char* key;
  uint16_t id;
  AttrKind kind;
};

// Expression names in a fixed order; the wire format refers to them (and to each one's
// attributes) by index.
const std::vector<std::string>& ExprNames();

// nullptr for expression names the addon does not know.
const std::vector<AttrSpec>* AttrsOf(const std::string& exprName);

nftnl_expr* BuildExpr(const Expr& e);
Expr ReadExpr(nftnl_expr* e);

}  // namespace capstan::nft
