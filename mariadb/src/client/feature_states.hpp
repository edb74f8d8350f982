#pragma once
// Per-connection state of features the session knows nothing about (the
// bulk exchange's @@max_allowed_packet cache, say): each feature keeps its
// own type here, made on first use and dropped with the connection, so a
// new feature never adds a Session field.
//
//   exchange::MaxAllowedPacket& cache = session.features.get<exchange::MaxAllowedPacket>();
#include <memory>
#include <utility>
#include <vector>

namespace sluice::mariadb::detail {

class FeatureStates {
public:
    // T's state on this connection, value-initialised the first time.
    template <class T>
    T& get() {
        for (Slot& slot : slots_) {
            if (slot.key == &key_of<T>) return static_cast<Holder<T>&>(*slot.state).value;
        }
        auto holder = std::make_unique<Holder<T>>();
        T& value = holder->value;
        slots_.push_back(Slot{&key_of<T>, std::move(holder)});
        return value;
    }

private:
    struct State {
        virtual ~State() = default;
    };
    template <class T>
    struct Holder final : State {
        T value{};
    };
    // One object per type: its address is the type's key.
    template <class T>
    static constexpr char key_of = 0;
    struct Slot {
        const char* key;
        std::unique_ptr<State> state;
    };
    std::vector<Slot> slots_;  // a handful at most: a linear search
};

}  // namespace sluice::mariadb::detail
