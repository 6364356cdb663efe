// Cluster DNS's UDP hot path. A thread per listening socket receives queries in batches
// (recvmmsg), answers those the prebuilt table holds (a copy of the reply with the query's
// ID and question bytes written in) and sends the batch's answers with one sendmmsg; every
// other datagram goes to JavaScript, which answers it the slow way and sends the reply
// with `send`. The table is TypeScript's: src/dns/prebuilt.ts computes every entry (key and
// reply bytes) and inserts or clears it here; this file only holds and looks them up.
//
// Staleness: `clear` and every lookup take the same mutex, so once `clear` has returned on
// the JS thread no answer from the old table is built (a reply already copied out for a
// query received before it may still leave, as it could from any server).
#include "dns_udp.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "op_error.h"

namespace capstan {
namespace {

constexpr uint16_t kQR = 0x8000, kOpcode = 0x7800, kRD = 0x0100, kCD = 0x0010, kOPT = 41;
constexpr int kBatch = 32;
constexpr size_t kMaxDatagram = 65536;
// The same buckets as DNSMetrics' histogram (src/dns/metrics.ts passes them in).
constexpr int kMaxBuckets = 32;

struct Entry {
  std::string reply;
  uint16_t qtype;
  uint8_t rcode;
  bool truncated;
};

// What the prebuilt key is made of, given by TypeScript so both sides agree.
struct Shape {
  int plainSize = 512;
  int serverSize = 1232;
  std::vector<int> slowOptions;  // EDNS options that must reach the slow path's decoder
};

struct Stats {
  double qtypes[257] = {};  // by query type < 256, [256] the rest
  double rcodes[16] = {};
  double truncated = 0;
  double buckets[kMaxBuckets + 1] = {};
  double sum = 0;
  double dropped = 0;  // misses JS's queue had no room for
};

struct Table {
  std::mutex mu;
  std::unordered_map<std::string, Entry> entries;
  uint64_t generation = 0;  // bumped by clear: tests and metrics can see a clear happened
};

// Marks DnsTable objects, so DnsUdp never unwraps anything else as one.
const napi_type_tag kTableTag = {0x6361707374616e64ULL, 0x6e737461626c6531ULL};

inline uint8_t Lower(uint8_t c) { return c >= 0x41 && c <= 0x5a ? c | 0x20 : c; }

void AppendShape(std::string& key, uint64_t shape) {
  for (int i = 0; i < 8; i++) key.push_back(static_cast<char>((shape >> (8 * i)) & 0xff));
}

// prebuilt.ts's `scan`, byte for byte: a plain query (one question, an uncompressed name,
// at most an EDNS0 OPT after it). Writes the key (shape, then the question with its name
// lower-cased) and the question's length; false sends it the slow way.
bool ScanQuery(const uint8_t* m, size_t len, const Shape& s, std::string& key, size_t& qlen) {
  if (len < 17) return false;
  uint16_t flags = (m[2] << 8) | m[3];
  if (flags & (kQR | kOpcode)) return false;
  if (m[4] != 0 || m[5] != 1 || m[6] != 0 || m[7] != 0 || m[8] != 0 || m[9] != 0 || m[10] != 0 || m[11] > 1) return false;
  size_t i = 12;
  for (;;) {
    if (i >= len) return false;
    uint8_t l = m[i];
    if (l == 0) break;
    if (l > 63 || i + l > 12 + 254) return false;
    size_t end = i + 1 + l;
    if (end >= len) return false;
    i = end;
  }
  size_t qEnd = i + 5;
  if (qEnd > len) return false;
  uint64_t shape = flags & (kRD | kCD);
  int limit = s.plainSize;
  if (m[11] == 0) {
    if (qEnd != len) return false;
  } else {
    size_t o = qEnd;
    if (o + 11 > len || m[o] != 0 || ((m[o + 1] << 8) | m[o + 2]) != kOPT || m[o + 6] != 0) return false;
    if (o + 11 + ((m[o + 9] << 8) | m[o + 10]) != len) return false;
    for (size_t p = o + 11; p < len;) {
      if (p + 4 > len) return false;
      int code = (m[p] << 8) | m[p + 1];
      if (std::find(s.slowOptions.begin(), s.slowOptions.end(), code) != s.slowOptions.end()) return false;
      p += 4 + ((m[p + 2] << 8) | m[p + 3]);
      if (p > len) return false;
    }
    limit = std::max(s.plainSize, std::min((m[o + 3] << 8) | m[o + 4], s.serverSize));
    shape |= 1u << 16;
    if (m[o + 7] & 0x80) shape |= 1u << 17;
  }
  shape += static_cast<uint64_t>(limit) << 18;
  key.clear();
  AppendShape(key, shape);
  for (size_t j = 12; j < qEnd; j++) key.push_back(static_cast<char>(j < qEnd - 4 ? Lower(m[j]) : m[j]));
  qlen = qEnd - 12;
  return true;
}

struct Miss {
  std::vector<uint8_t> data;
  sockaddr_storage addr;
};

class DnsTable : public Napi::ObjectWrap<DnsTable> {
 public:
  static Napi::Function Init(Napi::Env env) {
    return DefineClass(env, "DnsTable", {
        InstanceMethod("insert", &DnsTable::Insert),
        InstanceMethod("clear", &DnsTable::Clear),
        InstanceMethod("size", &DnsTable::Size),
    });
  }

  DnsTable(const Napi::CallbackInfo& info) : Napi::ObjectWrap<DnsTable>(info), table_(std::make_shared<Table>()) {
    napi_type_tag_object(info.Env(), info.This(), &kTableTag);
  }

  std::shared_ptr<Table> table() const { return table_; }

 private:
  // insert(shape, question, reply, qtype, rcode, truncated)
  Napi::Value Insert(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (info.Length() < 6 || !info[0].IsNumber() || !info[1].IsTypedArray() || !info[2].IsTypedArray() || !info[3].IsNumber() || !info[4].IsNumber()) {
      throw Napi::TypeError::New(env, "insert(shape: number, question: Uint8Array, reply: Uint8Array, qtype: number, rcode: number, truncated: boolean)");
    }
    double shapeNum = info[0].As<Napi::Number>().DoubleValue();
    if (!(shapeNum >= 0 && shapeNum < 9007199254740992.0)) throw Napi::TypeError::New(env, "insert: shape out of range");
    auto question = info[1].As<Napi::Uint8Array>();
    auto reply = info[2].As<Napi::Uint8Array>();
    if (question.ByteLength() < 5 || reply.ByteLength() < 12 + question.ByteLength()) throw Napi::TypeError::New(env, "insert: question or reply too short");
    std::string key;
    AppendShape(key, static_cast<uint64_t>(shapeNum));
    key.append(reinterpret_cast<const char*>(question.Data()), question.ByteLength());
    Entry e{std::string(reinterpret_cast<const char*>(reply.Data()), reply.ByteLength()),
            static_cast<uint16_t>(info[3].As<Napi::Number>().Uint32Value()),
            static_cast<uint8_t>(info[4].As<Napi::Number>().Uint32Value() & 0xf), info[5].ToBoolean().Value()};
    std::lock_guard<std::mutex> lock(table_->mu);
    table_->entries[std::move(key)] = std::move(e);
    return env.Undefined();
  }

  Napi::Value Clear(const Napi::CallbackInfo& info) {
    std::lock_guard<std::mutex> lock(table_->mu);
    table_->entries.clear();
    table_->generation++;
    return info.Env().Undefined();
  }

  Napi::Value Size(const Napi::CallbackInfo& info) {
    std::lock_guard<std::mutex> lock(table_->mu);
    return Napi::Number::New(info.Env(), static_cast<double>(table_->entries.size()));
  }

  std::shared_ptr<Table> table_;
};

void ThrowErrno(Napi::Env env, int err, const std::string& what) { throw Napi::Error(env, OpError(err, what + ": " + ErrnoMessage(err)).ToJs(env)); }

bool ParseAddress(const std::string& host, int port, sockaddr_storage& ss, socklen_t& len) {
  std::memset(&ss, 0, sizeof ss);
  if (host.find(':') != std::string::npos) {
    auto* a = reinterpret_cast<sockaddr_in6*>(&ss);
    a->sin6_family = AF_INET6;
    a->sin6_port = htons(port);
    len = sizeof *a;
    return inet_pton(AF_INET6, host.c_str(), &a->sin6_addr) == 1;
  }
  auto* a = reinterpret_cast<sockaddr_in*>(&ss);
  a->sin_family = AF_INET;
  a->sin_port = htons(port);
  len = sizeof *a;
  return inet_pton(AF_INET, host.c_str(), &a->sin_addr) == 1;
}

void AddressToJs(Napi::Env env, const sockaddr_storage& ss, Napi::Value& address, Napi::Value& port) {
  char buf[INET6_ADDRSTRLEN] = {};
  if (ss.ss_family == AF_INET6) {
    auto* a = reinterpret_cast<const sockaddr_in6*>(&ss);
    inet_ntop(AF_INET6, &a->sin6_addr, buf, sizeof buf);
    port = Napi::Number::New(env, ntohs(a->sin6_port));
  } else {
    auto* a = reinterpret_cast<const sockaddr_in*>(&ss);
    inet_ntop(AF_INET, &a->sin_addr, buf, sizeof buf);
    port = Napi::Number::New(env, ntohs(a->sin_port));
  }
  address = Napi::String::New(env, buf);
}

// new DnsUdp(host, port, table, onMiss(msg, address, port), {plainUdpSize, serverUdpSize, slowOptions, buckets, recvBuffer})
class DnsUdp : public Napi::ObjectWrap<DnsUdp> {
 public:
  static Napi::Function Init(Napi::Env env) {
    return DefineClass(env, "DnsUdp", {
        InstanceMethod("port", &DnsUdp::Port),
        InstanceMethod("send", &DnsUdp::Send),
        InstanceMethod("stats", &DnsUdp::TakeStats),
        InstanceMethod("close", &DnsUdp::Close),
    });
  }

  DnsUdp(const Napi::CallbackInfo& info) : Napi::ObjectWrap<DnsUdp>(info) {
    Napi::Env env = info.Env();
    if (info.Length() < 5 || !info[0].IsString() || !info[1].IsNumber() || !info[2].IsObject() || !info[3].IsFunction() || !info[4].IsObject()) {
      throw Napi::TypeError::New(env, "new DnsUdp(host: string, port: number, table: DnsTable, onMiss: Function, options: object)");
    }
    auto tableObj = info[2].As<Napi::Object>();
    bool isTable = false;
    napi_check_object_type_tag(env, tableObj, &kTableTag, &isTable);
    if (!isTable) throw Napi::TypeError::New(env, "table must be a DnsTable");
    table_ = DnsTable::Unwrap(tableObj)->table();
    auto opts = info[4].As<Napi::Object>();
    shape_.plainSize = opts.Get("plainUdpSize").As<Napi::Number>().Int32Value();
    shape_.serverSize = opts.Get("serverUdpSize").As<Napi::Number>().Int32Value();
    auto slow = opts.Get("slowOptions").As<Napi::Array>();
    for (uint32_t i = 0; i < slow.Length(); i++) shape_.slowOptions.push_back(slow.Get(i).As<Napi::Number>().Int32Value());
    auto buckets = opts.Get("buckets").As<Napi::Array>();
    if (buckets.Length() > kMaxBuckets) throw Napi::TypeError::New(env, "too many histogram buckets");
    for (uint32_t i = 0; i < buckets.Length(); i++) buckets_.push_back(buckets.Get(i).As<Napi::Number>().DoubleValue());

    std::string host = info[0].As<Napi::String>().Utf8Value();
    int port = info[1].As<Napi::Number>().Int32Value();
    if (port < 0 || port > 65535) throw Napi::TypeError::New(env, "port out of range");
    sockaddr_storage ss;
    socklen_t len;
    if (!ParseAddress(host, port, ss, len)) throw Napi::TypeError::New(env, "not an IP address: " + host);
    fd_ = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) ThrowErrno(env, errno, "socket");
    if (bind(fd_, reinterpret_cast<sockaddr*>(&ss), len) != 0) {
      int err = errno;
      ::close(fd_);
      fd_ = -1;
      ThrowErrno(env, err, "bind " + host + ":" + std::to_string(port));
    }
    // Bursts from many pods at once: a larger receive queue drops fewer (capped by rmem_max).
    int rcv = opts.Has("recvBuffer") ? opts.Get("recvBuffer").As<Napi::Number>().Int32Value() : 4 << 20;
    setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof rcv);
    sockaddr_storage bound;
    socklen_t blen = sizeof bound;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&bound), &blen);
    port_ = ss.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port) : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
    // Stop wakes the thread with shutdown(SHUT_RD); the timeout is the backstop.
    timeval tv = {0, 200000};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    onMiss_ = Napi::ThreadSafeFunction::New(env, info[3].As<Napi::Function>(), "capstan-dns-udp", 4096, 1);
    thread_ = std::thread([this] { Run(); });
  }

  ~DnsUdp() override { Stop(); }

 private:
  struct Slot {
    iovec inIov;
    sockaddr_storage addr;
    iovec outIov;
  };

  void Run() {
    std::vector<Slot> slots(kBatch);
    std::vector<std::vector<uint8_t>> inBuf(kBatch, std::vector<uint8_t>(kMaxDatagram));
    std::vector<std::vector<uint8_t>> outBuf(kBatch, std::vector<uint8_t>(kMaxDatagram));
    std::vector<mmsghdr> in(kBatch), out(kBatch);
    std::string key;
    key.reserve(300);
    Stats local;
    for (;;) {
      for (int i = 0; i < kBatch; i++) {
        auto& s = slots[i];
        s.inIov = {inBuf[i].data(), kMaxDatagram};
        std::memset(&in[i], 0, sizeof in[i]);
        in[i].msg_hdr.msg_name = &s.addr;
        in[i].msg_hdr.msg_namelen = sizeof s.addr;
        in[i].msg_hdr.msg_iov = &s.inIov;
        in[i].msg_hdr.msg_iovlen = 1;
      }
      // Blocks until one datagram is there, then takes what else is queued: two system
      // calls per batch (this and sendmmsg), none spent finding the queue empty.
      int n = recvmmsg(fd_, in.data(), kBatch, MSG_WAITFORONE, nullptr);
      if (stopping_.load(std::memory_order_acquire)) return;
      if (n <= 0) {
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return;
        continue;  // the receive timeout: look at stopping_ again
      }
      auto started = std::chrono::steady_clock::now();
      int answered = 0;
      {
        std::lock_guard<std::mutex> lock(table_->mu);
        for (int i = 0; i < n; i++) {
          const uint8_t* m = inBuf[i].data();
          size_t len = in[i].msg_len;
          size_t qlen = 0;
          if (!(in[i].msg_hdr.msg_flags & MSG_TRUNC) && ScanQuery(m, len, shape_, key, qlen)) {
            auto it = table_->entries.find(key);
            if (it != table_->entries.end()) {
              const Entry& e = it->second;
              uint8_t* r = outBuf[answered].data();
              std::memcpy(r, e.reply.data(), e.reply.size());
              r[0] = m[0];
              r[1] = m[1];
              std::memcpy(r + 12, m + 12, qlen);
              auto& o = out[answered];
              std::memset(&o, 0, sizeof o);
              slots[answered].outIov = {r, e.reply.size()};
              o.msg_hdr.msg_name = in[i].msg_hdr.msg_name;
              o.msg_hdr.msg_namelen = in[i].msg_hdr.msg_namelen;
              o.msg_hdr.msg_iov = &slots[answered].outIov;
              o.msg_hdr.msg_iovlen = 1;
              answered++;
              local.qtypes[e.qtype < 256 ? e.qtype : 256]++;
              local.rcodes[e.rcode]++;
              if (e.truncated) local.truncated++;
              continue;
            }
          }
          auto* miss = new Miss{std::vector<uint8_t>(m, m + std::min(len, kMaxDatagram)), {}};
          std::memcpy(&miss->addr, in[i].msg_hdr.msg_name, in[i].msg_hdr.msg_namelen);
          if (onMiss_.NonBlockingCall(miss, DeliverMiss) != napi_ok) {
            delete miss;
            local.dropped++;
          }
        }
      }
      for (int sent = 0; sent < answered;) {
        int k = sendmmsg(fd_, out.data() + sent, answered - sent, 0);
        if (k > 0) {
          sent += k;
          continue;
        }
        if (k < 0 && errno == EINTR) continue;
        // Not taken within the send timeout (or refused): lost, as a full socket buffer loses it.
        if (k < 0) sent++;
        else break;
      }
      if (answered > 0) {
        double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        size_t b = 0;
        while (b < buckets_.size() && seconds > buckets_[b]) b++;
        local.buckets[b] += answered;
        local.sum += seconds * answered;
      }
      std::lock_guard<std::mutex> lock(statsMu_);
      Add(stats_, local);
      local = Stats();
    }
  }

  static void Add(Stats& to, const Stats& from) {
    for (int i = 0; i < 257; i++) to.qtypes[i] += from.qtypes[i];
    for (int i = 0; i < 16; i++) to.rcodes[i] += from.rcodes[i];
    for (int i = 0; i <= kMaxBuckets; i++) to.buckets[i] += from.buckets[i];
    to.truncated += from.truncated;
    to.sum += from.sum;
    to.dropped += from.dropped;
  }

  static void DeliverMiss(Napi::Env env, Napi::Function cb, Miss* miss) {
    std::unique_ptr<Miss> owned(miss);
    if (env == nullptr || cb.IsEmpty()) return;
    Napi::Value address, port;
    AddressToJs(env, miss->addr, address, port);
    cb.Call({Napi::Buffer<uint8_t>::Copy(env, miss->data.data(), miss->data.size()), address, port});
  }

  Napi::Value Port(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), port_); }

  // send(reply, address, port): false when the kernel would not take it now (dropped).
  Napi::Value Send(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (info.Length() < 3 || !info[0].IsTypedArray() || !info[1].IsString() || !info[2].IsNumber()) throw Napi::TypeError::New(env, "send(reply: Uint8Array, address: string, port: number)");
    if (fd_ < 0) return Napi::Boolean::New(env, false);
    auto reply = info[0].As<Napi::Uint8Array>();
    sockaddr_storage ss;
    socklen_t len;
    if (!ParseAddress(info[1].As<Napi::String>().Utf8Value(), info[2].As<Napi::Number>().Int32Value(), ss, len)) throw Napi::TypeError::New(env, "send: not an IP address");
    ssize_t k = sendto(fd_, reply.Data(), reply.ByteLength(), MSG_DONTWAIT, reinterpret_cast<sockaddr*>(&ss), len);
    return Napi::Boolean::New(env, k >= 0);
  }

  // stats(): what the thread answered since the last call, then reset.
  Napi::Value TakeStats(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Stats s;
    {
      std::lock_guard<std::mutex> lock(statsMu_);
      s = stats_;
      stats_ = Stats();
    }
    auto arr = [&](const double* v, size_t n) {
      auto a = Napi::Float64Array::New(env, n);
      for (size_t i = 0; i < n; i++) a[i] = v[i];
      return a;
    };
    auto o = Napi::Object::New(env);
    o.Set("qtypes", arr(s.qtypes, 257));
    o.Set("rcodes", arr(s.rcodes, 16));
    o.Set("buckets", arr(s.buckets, buckets_.size() + 1));
    o.Set("sum", s.sum);
    o.Set("truncated", s.truncated);
    o.Set("dropped", s.dropped);
    return o;
  }

  Napi::Value Close(const Napi::CallbackInfo& info) {
    Stop();
    return info.Env().Undefined();
  }

  void Stop() {
    if (fd_ < 0) return;
    stopping_.store(true, std::memory_order_release);
    shutdown(fd_, SHUT_RD);
    if (thread_.joinable()) thread_.join();
    ::close(fd_);
    fd_ = -1;
    onMiss_.Release();
  }

  std::shared_ptr<Table> table_;
  Shape shape_;
  std::vector<double> buckets_;
  int fd_ = -1;
  std::atomic<bool> stopping_{false};
  int port_ = 0;
  Napi::ThreadSafeFunction onMiss_;
  std::thread thread_;
  std::mutex statsMu_;
  Stats stats_;
};

}  // namespace

void InitDns(Napi::Env env, Napi::Object exports) {
  exports.Set("DnsTable", DnsTable::Init(env));
  exports.Set("DnsUdp", DnsUdp::Init(env));
}

}  // namespace capstan
