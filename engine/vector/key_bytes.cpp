#include "engine/vector/key_bytes.h"

#include <cmath>
#include <limits>

#include "engine/types/interval.h"

namespace shoal::engine {

void appendKeyBytes(const Vector& vector, size_t row, std::string& out) {
  auto raw = [&](const auto& value) { out.append(reinterpret_cast<const char*>(&value), sizeof(value)); };
  switch (vector.type().physicalType()) {
    case PhysicalType::kBool:
      raw(vector.data<uint8_t>()[row]);
      break;
    case PhysicalType::kInt32:
      raw(static_cast<int64_t>(vector.data<int32_t>()[row]));
      break;
    case PhysicalType::kInt64:
      raw(vector.data<int64_t>()[row]);
      break;
    case PhysicalType::kInt128:
      // Intervals of one span are one key ('1 mon' = '30 days').
      raw(vector.type().id() == TypeId::kInterval ? intervalSpan(vector.data<__int128>()[row])
                                                  : vector.data<__int128>()[row]);
      break;
    case PhysicalType::kDouble: {
      double value = vector.data<double>()[row];
      if (value == 0) value = 0;  // -0.0
      if (std::isnan(value)) value = std::numeric_limits<double>::quiet_NaN();
      raw(value);
      break;
    }
    case PhysicalType::kString: {
      std::string_view text = vector.data<StringRef>()[row].view();
      auto length = static_cast<uint32_t>(text.size());
      raw(length);
      out.append(text);
      break;
    }
  }
}

}  // namespace shoal::engine
