// Module entry. Napi::Addon gives each environment (main thread, each worker thread) its
// own instance; the addon keeps no process-wide state beyond that.
#include "addon.h"
#include "dns_udp.h"

namespace capstan {

class Addon : public Napi::Addon<Addon> {
 public:
  Addon(Napi::Env env, Napi::Object exports) {
    DefineAddon(exports, {
        InstanceMethod("netlinkBatch", &Addon::Netlink),
        InstanceMethod("nftApply", &Addon::Apply),
        InstanceMethod("nftList", &Addon::List),
        InstanceMethod("nftGeneration", &Addon::Generation),
        InstanceMethod("nftSchema", &Addon::Schema),
    });
    InitDns(env, exports);
    InitNftMonitor(env, exports);
    exports.Set("abiVersion", Napi::Number::New(env, 1));
  }

 private:
  Napi::Value Netlink(const Napi::CallbackInfo& info) { return NetlinkBatch(info); }
  Napi::Value Apply(const Napi::CallbackInfo& info) { return NftApply(info); }
  Napi::Value List(const Napi::CallbackInfo& info) { return NftList(info); }
  Napi::Value Generation(const Napi::CallbackInfo& info) { return NftGeneration(info); }
  Napi::Value Schema(const Napi::CallbackInfo& info) { return NftSchema(info); }
};

}  // namespace capstan

using CapstanAddon = capstan::Addon;
NODE_API_ADDON(CapstanAddon)
