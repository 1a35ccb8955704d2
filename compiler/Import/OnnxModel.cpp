//===- OnnxModel.cpp - protobuf to plain C++ (the only file touching protobuf) -===//
//
// Compiled with -fexceptions: protobuf and libonnx may throw, and nothing may
// escape into the MLIR side (built without exceptions).
//
//===----------------------------------------------------------------------===//

#include "compiler/Import/OnnxModel.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <set>

namespace fs = std::filesystem;

namespace tract::onnx {

const char *dataTypeName(int32_t type) {
  switch (type) {
  case kFloat: return "float32";
  case kUInt8: return "uint8";
  case kInt8: return "int8";
  case kUInt16: return "uint16";
  case kInt16: return "int16";
  case kInt32: return "int32";
  case kInt64: return "int64";
  case kString: return "string";
  case kBool: return "bool";
  case kFloat16: return "float16";
  case kDouble: return "float64";
  case kUInt32: return "uint32";
  case kUInt64: return "uint64";
  case kComplex64: return "complex64";
  case kComplex128: return "complex128";
  case kBFloat16: return "bfloat16";
  default: return "undefined";
  }
}

int64_t dataTypeBytes(int32_t type) {
  switch (type) {
  case kUInt8: case kInt8: case kBool: return 1;
  case kUInt16: case kInt16: case kFloat16: case kBFloat16: return 2;
  case kFloat: case kInt32: case kUInt32: return 4;
  case kInt64: case kDouble: case kUInt64: return 8;
  default: return 0;
  }
}

int64_t Tensor::numElements() const {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

const Attribute *Node::attr(const std::string &attrName) const {
  for (const Attribute &a : attributes)
    if (a.name == attrName)
      return &a;
  return nullptr;
}

namespace {

struct Failure {
  std::string message;
};

template <typename T, typename Field>
void appendAs(std::string &out, const Field &field) {
  for (auto v : field) {
    T x = static_cast<T>(v);
    out.append(reinterpret_cast<const char *>(&x), sizeof(T));
  }
}

// An external data offset or length: a decimal count of bytes.
int64_t parseByteCount(const ::onnx::TensorProto &proto, const std::string &key,
                       const std::string &value) {
  bool ok = !value.empty();
  int64_t n = 0;
  for (char ch : value) {
    ok = ok && ch >= '0' && ch <= '9' && n <= (INT64_MAX - (ch - '0')) / 10;
    if (ok)
      n = n * 10 + (ch - '0');
  }
  if (!ok)
    throw Failure{"tensor '" + proto.name() + "': external data " + key + " '" + value +
                  "' is not a byte count (a decimal in [0, 2^63))"};
  return n;
}

// Reads external data, refusing any location that resolves outside `baseDir`
// (absolute paths, "..", symlinks out of the folder).
std::string readExternal(const ::onnx::TensorProto &proto, const fs::path &baseDir,
                         int64_t expectedBytes) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto &kv : proto.external_data()) {
    if (kv.key() == "location")
      location = kv.value();
    else if (kv.key() == "offset")
      offset = parseByteCount(proto, kv.key(), kv.value());
    else if (kv.key() == "length")
      length = parseByteCount(proto, kv.key(), kv.value());
  }
  if (location.empty())
    throw Failure{"tensor '" + proto.name() + "' has external data without a location"};
  // The file system would read the path up to the NUL, the checks below the
  // whole string: refuse what the two could disagree on.
  if (location.find('\0') != std::string::npos)
    throw Failure{"tensor '" + proto.name() + "': external data path contains a NUL byte"};
  fs::path rel(location);
  if (rel.is_absolute())
    throw Failure{"tensor '" + proto.name() + "': external data path '" + location +
                  "' is absolute; it must be relative to the model's folder"};
  std::error_code ec;
  fs::path base = fs::weakly_canonical(baseDir, ec);
  fs::path full = fs::weakly_canonical(baseDir / rel, ec);
  auto [baseEnd, fullIt] = std::mismatch(base.begin(), base.end(), full.begin(), full.end());
  if (ec || baseEnd != base.end() || full == base)
    throw Failure{"tensor '" + proto.name() + "': external data path '" + location +
                  "' escapes the model's folder"};
  if (!fs::is_regular_file(full, ec))
    throw Failure{"tensor '" + proto.name() + "': cannot open external data file '" +
                  location + "'"};
  std::ifstream in(full, std::ios::binary);
  if (!in)
    throw Failure{"tensor '" + proto.name() + "': cannot open external data file '" +
                  location + "'"};
  in.seekg(0, std::ios::end);
  int64_t size = in.tellg();
  if (offset < 0 || offset > size || (length >= 0 && length > size - offset))
    throw Failure{"tensor '" + proto.name() + "': external data range is outside '" +
                  location + "'"};
  if (length < 0)
    length = size - offset;
  if (length != expectedBytes)
    throw Failure{"tensor '" + proto.name() + "': external data holds " + std::to_string(length) +
                  " bytes, expected " + std::to_string(expectedBytes)};
  std::string bytes(length, '\0');
  in.seekg(offset);
  in.read(bytes.data(), length);
  if (!in)
    throw Failure{"tensor '" + proto.name() + "': cannot read external data"};
  return bytes;
}

Tensor convertTensor(const ::onnx::TensorProto &proto, const fs::path &baseDir) {
  Tensor t;
  t.name = proto.name();
  t.dataType = proto.data_type();
  for (int64_t d : proto.dims()) {
    if (d < 0)
      throw Failure{"tensor '" + t.name + "' has a negative dim"};
    t.dims.push_back(d);
  }
  int64_t n = 1;
  for (int64_t d : t.dims) {
    if (d > 0 && n > (int64_t(1) << 36) / d)
      throw Failure{"tensor '" + t.name + "' is too large"};
    n *= d;
  }
  int64_t elemBytes = dataTypeBytes(t.dataType);
  if (elemBytes == 0)
    return t; // string, complex, ...: no payload; the importer reports the type
  if (proto.data_location() == ::onnx::TensorProto::EXTERNAL) {
    t.bytes = readExternal(proto, baseDir, n * elemBytes);
  } else if (proto.has_raw_data()) {
    t.bytes = proto.raw_data();
  } else {
    switch (t.dataType) {
    case kFloat: appendAs<float>(t.bytes, proto.float_data()); break;
    case kDouble: appendAs<double>(t.bytes, proto.double_data()); break;
    case kInt64: appendAs<int64_t>(t.bytes, proto.int64_data()); break;
    case kUInt32: appendAs<uint32_t>(t.bytes, proto.uint64_data()); break;
    case kUInt64: appendAs<uint64_t>(t.bytes, proto.uint64_data()); break;
    case kInt32: appendAs<int32_t>(t.bytes, proto.int32_data()); break;
    case kInt16: appendAs<int16_t>(t.bytes, proto.int32_data()); break;
    case kUInt16: case kFloat16: case kBFloat16:
      appendAs<uint16_t>(t.bytes, proto.int32_data()); break;
    case kInt8: appendAs<int8_t>(t.bytes, proto.int32_data()); break;
    case kUInt8: appendAs<uint8_t>(t.bytes, proto.int32_data()); break;
    case kBool: appendAs<uint8_t>(t.bytes, proto.int32_data()); break;
    default: break;
    }
  }
  if ((int64_t)t.bytes.size() != n * elemBytes)
    throw Failure{"tensor '" + t.name + "' holds " + std::to_string(t.bytes.size()) +
                  " bytes, expected " + std::to_string(n * elemBytes)};
  if (t.dataType == kBool)
    for (char &c : t.bytes)
      c = c != 0;
  return t;
}

ValueInfo convertValueInfo(const ::onnx::ValueInfoProto &proto) {
  ValueInfo v;
  v.name = proto.name();
  if (proto.type().has_tensor_type()) {
    const auto &tt = proto.type().tensor_type();
    v.elemType = tt.elem_type();
    if (tt.has_shape()) {
      v.hasShape = true;
      for (const auto &d : tt.shape().dim()) {
        Dim dim;
        if (d.has_dim_value())
          dim.value = d.dim_value();
        else if (d.has_dim_param())
          dim.param = d.dim_param();
        v.dims.push_back(dim);
      }
    }
  }
  return v;
}

Node convertNode(const ::onnx::NodeProto &np, int index, const fs::path &baseDir);
ValueInfo convertValueInfo(const ::onnx::ValueInfoProto &proto);

// Every value of a graph is defined once (ONNX graphs are SSA): its inputs
// and its nodes' outputs are distinct names (an initializer may share an
// input's name: it is that input's default), and no output is listed twice.
void checkNames(const ::onnx::GraphProto &proto) {
  std::string where = proto.name().empty() ? "the graph" : "graph '" + proto.name() + "'";
  std::set<std::string> defined;
  for (const auto &in : proto.input())
    if (!defined.insert(in.name()).second)
      throw Failure{where + " declares input '" + in.name() + "' twice"};
  for (const auto &init : proto.initializer())
    defined.insert(init.name());
  for (const auto &np : proto.node())
    for (const std::string &out : np.output())
      if (!out.empty() && !defined.insert(out).second)
        throw Failure{"node '" + np.name() + "' (" + np.op_type() + ") defines '" + out +
                      "', which " + where + " already defines (a value has one producer)"};
  std::set<std::string> listed;
  for (const auto &out : proto.output())
    if (!listed.insert(out.name()).second)
      throw Failure{where + " lists output '" + out.name() + "' twice"};
}

std::shared_ptr<const Graph> convertGraph(const ::onnx::GraphProto &proto, const fs::path &baseDir,
                                          int depth) {
  if (depth > 16)
    throw Failure{"subgraphs nested more than 16 deep"};
  checkNames(proto);
  auto g = std::make_shared<Graph>();
  for (const auto &init : proto.initializer())
    g->initializers.push_back(convertTensor(init, baseDir));
  for (const auto &in : proto.input())
    g->inputs.push_back(convertValueInfo(in));
  for (const auto &out : proto.output())
    g->outputs.push_back(convertValueInfo(out));
  int index = 0;
  for (const auto &np : proto.node())
    g->nodes.push_back(convertNode(np, index++, baseDir));
  (void)depth;
  return g;
}

thread_local int graphDepth = 0;

Attribute convertAttribute(const ::onnx::AttributeProto &proto, const fs::path &baseDir) {
  Attribute a;
  a.name = proto.name();
  switch (proto.type()) {
  case ::onnx::AttributeProto::FLOAT: a.kind = Attribute::kFloat; a.f = proto.f(); break;
  case ::onnx::AttributeProto::INT: a.kind = Attribute::kInt; a.i = proto.i(); break;
  case ::onnx::AttributeProto::STRING: a.kind = Attribute::kString; a.s = proto.s(); break;
  case ::onnx::AttributeProto::TENSOR:
    a.kind = Attribute::kTensor;
    a.t = convertTensor(proto.t(), baseDir);
    break;
  case ::onnx::AttributeProto::FLOATS:
    a.kind = Attribute::kFloats;
    a.floats.assign(proto.floats().begin(), proto.floats().end());
    break;
  case ::onnx::AttributeProto::INTS:
    a.kind = Attribute::kInts;
    a.ints.assign(proto.ints().begin(), proto.ints().end());
    break;
  case ::onnx::AttributeProto::STRINGS:
    a.kind = Attribute::kStrings;
    a.strings.assign(proto.strings().begin(), proto.strings().end());
    break;
  case ::onnx::AttributeProto::GRAPH:
    a.kind = Attribute::kGraph;
    ++graphDepth;
    a.g = convertGraph(proto.g(), baseDir, graphDepth);
    --graphDepth;
    break;
  default: a.kind = Attribute::kOther; break;
  }
  return a;
}

void convertModel(const ::onnx::ModelProto &proto, const fs::path &baseDir, Model &model) {
  model.irVersion = proto.ir_version();
  model.producerName = proto.producer_name();
  model.producerVersion = proto.producer_version();
  model.opset = 0;
  for (const auto &op : proto.opset_import())
    if (op.domain().empty() || op.domain() == "ai.onnx")
      model.opset = op.version();
  if (model.opset < 0)
    throw Failure{"declares opset " + std::to_string(model.opset) + " (not a version)"};
  if (model.opset == 0)
    model.opset = 1; // IR v3+ models always declare it; older ones mean opset 1
  if (model.opset > newestKnownOpset())
    throw Failure{"declares opset " + std::to_string(model.opset) +
                  ", newer than the newest this tractc knows (" +
                  std::to_string(newestKnownOpset()) + ")"};
  const auto &graph = proto.graph();
  checkNames(graph);
  model.graphName = graph.name();
  // Tensors with a sparse or string payload are refused in convertTensor.
  for (const auto &init : graph.initializer())
    model.initializers.push_back(convertTensor(init, baseDir));
  if (graph.sparse_initializer_size() > 0)
    throw Failure{"sparse initializers are unsupported"};
  for (const auto &in : graph.input())
    model.inputs.push_back(convertValueInfo(in));
  for (const auto &out : graph.output())
    model.outputs.push_back(convertValueInfo(out));
  for (const auto &info : graph.value_info())
    model.valueInfos.push_back(convertValueInfo(info));
  int index = 0;
  for (const auto &np : graph.node())
    model.nodes.push_back(convertNode(np, index++, baseDir));
}

Node convertNode(const ::onnx::NodeProto &np, int index, const fs::path &baseDir) {
  Node node;
  node.name = np.name();
  if (node.name.empty())
    node.name = np.op_type() + "_" + std::to_string(index);
  node.opType = np.op_type();
  if (node.opType.empty())
    throw Failure{"node '" + node.name + "' has no op type"};
  node.domain = np.domain();
  node.inputs.assign(np.input().begin(), np.input().end());
  node.outputs.assign(np.output().begin(), np.output().end());
  for (const auto &a : np.attribute())
    node.attributes.push_back(convertAttribute(a, baseDir));
  return node;
}

// Parses a ModelProto from `coded` and converts it; `error` on failure.
bool convertFrom(google::protobuf::io::CodedInputStream &coded, const fs::path &baseDir,
                 Model &model, std::string &error) {
  ::onnx::ModelProto proto;
  coded.SetTotalBytesLimit(INT_MAX);
  if (!proto.ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage()) {
    error = "is not a valid ONNX protobuf (parse error)";
    return false;
  }
  if (!proto.has_graph()) {
    error = "has no graph (not an ONNX model?)";
    return false;
  }
  convertModel(proto, baseDir, model);
  return true;
}

// Runs `body`, turning what it throws into `error`.
template <typename Fn> bool guarded(std::string &error, Fn body) {
  try {
    return body();
  } catch (const Failure &f) {
    error = f.message;
  } catch (const std::exception &e) {
    error = std::string("cannot read the model: ") + e.what();
  } catch (...) {
    error = "cannot read the model";
  }
  return false;
}

} // namespace

int64_t newestKnownOpset() {
  static const int64_t newest = [] {
    const auto &ranges = ::onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
    auto it = ranges.find(::onnx::ONNX_DOMAIN);
    return it == ranges.end() ? int64_t(0) : int64_t(it->second.second);
  }();
  return newest;
}

bool loadModel(const std::string &path, Model &model, std::string &error) {
  return guarded(error, [&] {
    model = Model();
    model.path = path;
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) {
      error = fs::exists(path, ec) ? "is not a regular file" : "no such file";
      return false;
    }
    int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0) {
      error = "cannot open the file";
      return false;
    }
    fs::path baseDir = fs::path(path).parent_path();
    if (baseDir.empty())
      baseDir = ".";
    google::protobuf::io::FileInputStream raw(fd);
    raw.SetCloseOnDelete(true); // closed on every path, a throw included
    google::protobuf::io::CodedInputStream coded(&raw);
    return convertFrom(coded, baseDir, model, error);
  });
}

bool parseModel(const void *data, size_t size, const std::string &baseDir, Model &model,
                std::string &error) {
  return guarded(error, [&] {
    model = Model();
    if (size > (size_t)INT_MAX) {
      error = "is larger than 2 GiB";
      return false;
    }
    google::protobuf::io::CodedInputStream coded(static_cast<const uint8_t *>(data), (int)size);
    return convertFrom(coded, baseDir, model, error);
  });
}

} // namespace tract::onnx
