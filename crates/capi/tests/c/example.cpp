// A device under test in C++ beside the model: each handle owned by a
// std::unique_ptr, each failed call thrown as an exception with the handle's
// last error. The "device" is a machine stepping a Neuron program against the
// embedder's own memory (a std::vector behind the callbacks); the lockstep
// check holds each unit's commits against the model's run of the program.
#include "xstore.h"

#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace xs {

template <typename T, xstore_status (*Free)(T *)>
struct Deleter {
  void operator()(T *p) const { Free(p); }
};
template <typename T, xstore_status (*Free)(T *)>
using Handle = std::unique_ptr<T, Deleter<T, Free>>;

using Isa = Handle<xstore_isa, xstore_isa_free>;
using Memory = Handle<xstore_memory, xstore_memory_free>;
using Machine = Handle<xstore_machine, xstore_machine_free>;
using Program = Handle<xstore_program, xstore_program_free>;
using Effects = Handle<xstore_effects, xstore_effects_free>;
using Cosim = Handle<xstore_cosim, xstore_cosim_free>;

// Throw unless `s` is one of the statuses the caller expects.
inline xstore_status check(xstore_status s, const char *message, xstore_status also = XSTORE_OK) {
  if (s != XSTORE_OK && s != also) throw std::runtime_error(std::string(xstore_status_name(s)) + ": " + message);
  return s;
}

// Make a handle with `make`, throwing with its last error when that fails.
template <typename H, typename Make, typename LastError>
H make(Make make, LastError last_error) {
  typename H::pointer raw = nullptr;
  xstore_status s = make(&raw);
  H h(raw);
  check(s, last_error(raw));
  return h;
}

}  // namespace xs

// The embedder's memory: `size` bytes from `base`, counting commits.
struct Scratchpad {
  uint64_t base;
  std::vector<uint8_t> bytes;
  std::vector<xstore_write> commits;
  std::vector<std::vector<uint8_t>> committed;

  bool inside(uint64_t addr, uint64_t last) const { return addr >= base && last < base + bytes.size(); }

  static int32_t read(void *user, uint64_t addr, uint8_t *buf, size_t len, uint64_t *) {
    auto *s = static_cast<Scratchpad *>(user);
    if (!s->inside(addr, addr + len - 1)) return XSTORE_ACCESS_UNMAPPED;
    std::memcpy(buf, &s->bytes[addr - s->base], len);
    return XSTORE_ACCESS_OK;
  }
  static int32_t probe(void *user, uint64_t addr, uint64_t last, uint64_t *) {
    return static_cast<Scratchpad *>(user)->inside(addr, last) ? XSTORE_ACCESS_OK : XSTORE_ACCESS_UNMAPPED;
  }
  static void commit(void *user, uint64_t addr, const uint8_t *data, size_t len) {
    auto *s = static_cast<Scratchpad *>(user);
    std::memcpy(&s->bytes[addr - s->base], data, len);
    s->committed.emplace_back(data, data + len);
    s->commits.push_back({addr, s->committed.back().data(), len});
  }
};

static const char *PROGRAM =
    "tensor_store.u8 [0x1000], num_elem=(4,1), imm=(1,2,3,4)\n"
    "tensor_store.u16 [0x1010], num_elem=(2,2), step_elem=(1,8), imm=(5,6,7,8)\n";

int main() {
  try {
    auto isa = xs::make<xs::Isa>([](xstore_isa **p) { return xstore_isa_new("neuron", p); }, xstore_isa_last_error);
    Scratchpad pad{0x1000, std::vector<uint8_t>(0x100), {}, {}};
    xstore_memory_callbacks cb{&pad, Scratchpad::read, Scratchpad::probe, Scratchpad::commit};
    auto memory = xs::make<xs::Memory>([&](xstore_memory **p) { return xstore_memory_new_callbacks(&cb, p); },
                                       xstore_memory_last_error);
    auto program = xs::make<xs::Program>(
        [&](xstore_program **p) { return xstore_program_new_text(isa.get(), PROGRAM, p); },
        xstore_program_last_error);
    auto device = xs::make<xs::Machine>(
        [&](xstore_machine **p) { return xstore_machine_new_with_memory(isa.get(), memory.get(), p); },
        xstore_machine_last_error);
    memory.release();  // the device's machine owns it now
    auto model = xs::make<xs::Cosim>(
        [&](xstore_cosim **p) { return xstore_cosim_new_program(isa.get(), PROGRAM, p); }, xstore_cosim_last_error);
    auto effects = xs::make<xs::Effects>([](xstore_effects **p) { return xstore_effects_new(p); },
                                         xstore_effects_last_error);
    for (;;) {
      pad.commits.clear();
      pad.committed.clear();
      xstore_status s = xstore_machine_step(device.get(), program.get(), effects.get());
      if (s == XSTORE_END) break;
      xs::check(s, xstore_machine_last_error(device.get()), XSTORE_FAULT);
      s = xstore_cosim_check(model.get(), pad.commits.data(), pad.commits.size(), nullptr);
      if (s == XSTORE_MISMATCH) {
        xstore_mismatch m;
        xs::check(xstore_cosim_mismatch(model.get(), &m), xstore_cosim_last_error(model.get()));
        std::printf("%s", m.report);
        return 1;
      }
      xs::check(s, xstore_cosim_last_error(model.get()));
      std::printf("unit matches the model: %zu write(s)\n", pad.commits.size());
    }
  } catch (const std::exception &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
