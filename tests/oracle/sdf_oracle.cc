// sdf_oracle: a differential oracle for Snapframe's `frames` output, built on
// Debian's libsdformat 12.3.
//
// Usage: sdf_oracle [--path DIR]... [--relative-to DIR] [--timing] FILE
//
//   --path DIR         model search directory for model:// and bare URIs
//                      (repeatable; SDF_PATH entries are added too)
//   --relative-to DIR  print error file paths (and paths inside messages)
//                      relative to DIR, for reproducible golden files
//   --timing           print load / resolve times on stderr
//
// Loads FILE with sdf::Root::Load and prints one JSON object on stdout in the
// shape of `snapframe frames --json`:
//
//   {"errors": [{"code": NAME, "message": str, "file": str, "line": int}, ...],
//    "frames": {"<scoped name>": {"kind": "model"|"link"|"joint"|"frame",
//                                 "pose": [x, y, z, qw, qx, qy, qz]}, ...}}
//
// * World file: every object is named below the world (`robot::arm::link`,
//   the world's own name is not part of it) and posed in the world frame.
// * Model file: the top model is listed under its own name with the identity
//   pose, everything else below it (`top::robot::link`), posed in the top
//   model's frame.
//
// Poses are obtained the way libsdformat 12.3 allows (see
// /work/shared/reference/sdformat.md section 7.3): each object is resolved in
// the scope that owns it, against that scope's frame (`world` or `__model__`,
// passed explicitly -- a joint's default would be its child frame), and the
// results are chained down the model tree.
//
// Include resolution: `--path DIR` entries (and SDF_PATH) are searched for
// `model://NAME` and plain relative URIs, and the directory of FILE is tried
// too.  The callback is installed both in the ParserConfig and globally with
// sdf::setFindCallback, because 12.3 ignores the ParserConfig callback for
// includes nested inside included files.  The process also changes its working
// directory to FILE's directory, because 12.3 resolves a relative
// scheme-less URI against the current directory, and maps `file://` to FILE's
// directory (see the comment at AddURIPath below).
//
// Anything libsdformat prints on its console (std::cerr), e.g. "Unable to
// convert from SDF version 1.10 to 1.9", is passed through on stderr.  Such
// messages are not part of the returned sdf::Errors and so not in the JSON.
//
// Exit status: 0 when Root::Load reported no errors, 1 when it did, 2 on a
// usage error.

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <ignition/math/Pose3.hh>
#include <sdf/Error.hh>
#include <sdf/Frame.hh>
#include <sdf/Joint.hh>
#include <sdf/Link.hh>
#include <sdf/Model.hh>
#include <sdf/ParserConfig.hh>
#include <sdf/Root.hh>
#include <sdf/SDFImpl.hh>
#include <sdf/SemanticPose.hh>
#include <sdf/Types.hh>
#include <sdf/World.hh>

namespace
{
using Pose = ignition::math::Pose3d;

// ---------------------------------------------------------------------------
// Error code names.  The numbers behind sdf::ErrorCode moved between major
// releases, so the JSON carries names only.  This table follows the enum in
// /usr/include/sdformat-12.3/sdf/Error.hh.
const char *CodeName(sdf::ErrorCode _code)
{
  using C = sdf::ErrorCode;
  switch (_code)
  {
    case C::NONE: return "NONE";
    case C::FILE_READ: return "FILE_READ";
    case C::DUPLICATE_NAME: return "DUPLICATE_NAME";
    case C::RESERVED_NAME: return "RESERVED_NAME";
    case C::ATTRIBUTE_MISSING: return "ATTRIBUTE_MISSING";
    case C::ATTRIBUTE_INVALID: return "ATTRIBUTE_INVALID";
    case C::ATTRIBUTE_DEPRECATED: return "ATTRIBUTE_DEPRECATED";
    case C::ATTRIBUTE_INCORRECT_TYPE: return "ATTRIBUTE_INCORRECT_TYPE";
    case C::ELEMENT_MISSING: return "ELEMENT_MISSING";
    case C::ELEMENT_INVALID: return "ELEMENT_INVALID";
    case C::ELEMENT_DEPRECATED: return "ELEMENT_DEPRECATED";
    case C::ELEMENT_INCORRECT_TYPE: return "ELEMENT_INCORRECT_TYPE";
    case C::URI_INVALID: return "URI_INVALID";
    case C::URI_LOOKUP: return "URI_LOOKUP";
    case C::DIRECTORY_NONEXISTANT: return "DIRECTORY_NONEXISTANT";
    case C::MODEL_CANONICAL_LINK_INVALID: return "MODEL_CANONICAL_LINK_INVALID";
    case C::MODEL_WITHOUT_LINK: return "MODEL_WITHOUT_LINK";
    case C::NESTED_MODELS_UNSUPPORTED: return "NESTED_MODELS_UNSUPPORTED";
    case C::LINK_INERTIA_INVALID: return "LINK_INERTIA_INVALID";
    case C::JOINT_CHILD_LINK_INVALID: return "JOINT_CHILD_LINK_INVALID";
    case C::JOINT_PARENT_LINK_INVALID: return "JOINT_PARENT_LINK_INVALID";
    case C::JOINT_PARENT_SAME_AS_CHILD: return "JOINT_PARENT_SAME_AS_CHILD";
    case C::FRAME_ATTACHED_TO_INVALID: return "FRAME_ATTACHED_TO_INVALID";
    case C::FRAME_ATTACHED_TO_CYCLE: return "FRAME_ATTACHED_TO_CYCLE";
    case C::FRAME_ATTACHED_TO_GRAPH_ERROR:
      return "FRAME_ATTACHED_TO_GRAPH_ERROR";
    case C::POSE_RELATIVE_TO_INVALID: return "POSE_RELATIVE_TO_INVALID";
    case C::POSE_RELATIVE_TO_CYCLE: return "POSE_RELATIVE_TO_CYCLE";
    case C::POSE_RELATIVE_TO_GRAPH_ERROR: return "POSE_RELATIVE_TO_GRAPH_ERROR";
    case C::STRING_READ: return "STRING_READ";
    case C::MODEL_PLACEMENT_FRAME_INVALID:
      return "MODEL_PLACEMENT_FRAME_INVALID";
    case C::VERSION_DEPRECATED: return "VERSION_DEPRECATED";
    case C::MERGE_INCLUDE_UNSUPPORTED: return "MERGE_INCLUDE_UNSUPPORTED";
  }
  return "UNKNOWN";
}

// ---------------------------------------------------------------------------
// Minimal JSON writing.
std::string JsonString(const std::string &_s)
{
  std::string out = "\"";
  for (unsigned char c : _s)
  {
    switch (c)
    {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20)
        {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out += buf;
        }
        else
        {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

std::string JsonNumber(double _v)
{
  if (!std::isfinite(_v))
    return "null";
  // Round-off noise below 1e-12 is printed as an exact zero (and never "-0").
  if (std::fabs(_v) < 1e-12)
    return "0";
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.15g", _v);
  return buf;
}

// [x, y, z, qw, qx, qy, qz] with qw >= 0.
std::string JsonPose(const Pose &_p)
{
  auto q = _p.Rot();
  double w = q.W(), x = q.X(), y = q.Y(), z = q.Z();
  const double n = std::sqrt(w * w + x * x + y * y + z * z);
  if (n > 0)
  {
    w /= n; x /= n; y /= n; z /= n;
  }
  if (w < 0 || (w == 0 && (x < 0 || (x == 0 && (y < 0 || (y == 0 && z < 0))))))
  {
    w = -w; x = -x; y = -y; z = -z;
  }
  std::ostringstream os;
  os << "[" << JsonNumber(_p.Pos().X()) << ", " << JsonNumber(_p.Pos().Y())
     << ", " << JsonNumber(_p.Pos().Z()) << ", " << JsonNumber(w) << ", "
     << JsonNumber(x) << ", " << JsonNumber(y) << ", " << JsonNumber(z) << "]";
  return os.str();
}

// ---------------------------------------------------------------------------
struct Entry
{
  std::string name;
  std::string kind;
  Pose pose;
};

struct Output
{
  std::vector<sdf::Error> errors;
  std::vector<Entry> frames;
  // Whether Root::Load itself reported errors; resolution failures that follow
  // from those are not reported a second time.
  bool loadFailed = false;
  std::string topFile;

  void Add(const std::string &_name, const char *_kind, const Pose &_pose)
  {
    this->frames.push_back({_name, _kind, _pose});
  }

  // Resolve `_sp` against `_frame` in its own scope. On failure the object is
  // left out of the listing; the failure is reported only when the load was
  // otherwise clean (it then points at something libsdformat let through).
  bool Resolve(const sdf::SemanticPose &_sp, const std::string &_frame,
               const std::string &_what, Pose &_out)
  {
    sdf::Errors errs = _sp.Resolve(_out, _frame);
    if (errs.empty())
      return true;
    if (!this->loadFailed)
    {
      for (auto e : errs)
      {
        e = sdf::Error(e.Code(),
                       e.Message() + " (while resolving [" + _what +
                           "] against [" + _frame + "])");
        this->errors.push_back(e);
      }
    }
    return false;
  }
};

// List everything inside `_model`, whose pose in the reference frame is
// `_X_RM` and whose scoped name is `_name`.  `_model` itself is listed by the
// caller.
void WalkModel(const sdf::Model *_model, const std::string &_name,
               const Pose &_X_RM, Output &_out)
{
  Pose X_ME;
  for (uint64_t i = 0; i < _model->LinkCount(); ++i)
  {
    const sdf::Link *link = _model->LinkByIndex(i);
    const std::string name = sdf::JoinName(_name, link->Name());
    if (_out.Resolve(link->SemanticPose(), "__model__", name, X_ME))
      _out.Add(name, "link", _X_RM * X_ME);
  }
  for (uint64_t i = 0; i < _model->JointCount(); ++i)
  {
    const sdf::Joint *joint = _model->JointByIndex(i);
    const std::string name = sdf::JoinName(_name, joint->Name());
    // Explicit "__model__": a joint's default resolve-to frame is its child.
    if (_out.Resolve(joint->SemanticPose(), "__model__", name, X_ME))
      _out.Add(name, "joint", _X_RM * X_ME);
  }
  for (uint64_t i = 0; i < _model->FrameCount(); ++i)
  {
    const sdf::Frame *frame = _model->FrameByIndex(i);
    const std::string name = sdf::JoinName(_name, frame->Name());
    if (_out.Resolve(frame->SemanticPose(), "__model__", name, X_ME))
      _out.Add(name, "frame", _X_RM * X_ME);
  }
  for (uint64_t i = 0; i < _model->ModelCount(); ++i)
  {
    const sdf::Model *nested = _model->ModelByIndex(i);
    const std::string name = sdf::JoinName(_name, nested->Name());
    Pose X_MN;
    if (!_out.Resolve(nested->SemanticPose(), "__model__", name, X_MN))
      continue;
    const Pose X_RN = _X_RM * X_MN;
    _out.Add(name, "model", X_RN);
    WalkModel(nested, name, X_RN, _out);
  }
}

void WalkWorld(const sdf::World *_world, Output &_out)
{
  Pose X_WE;
  for (uint64_t i = 0; i < _world->ModelCount(); ++i)
  {
    const sdf::Model *model = _world->ModelByIndex(i);
    const std::string &name = model->Name();
    if (!_out.Resolve(model->SemanticPose(), "world", name, X_WE))
      continue;
    _out.Add(name, "model", X_WE);
    WalkModel(model, name, X_WE, _out);
  }
  for (uint64_t i = 0; i < _world->FrameCount(); ++i)
  {
    const sdf::Frame *frame = _world->FrameByIndex(i);
    if (_out.Resolve(frame->SemanticPose(), "world", frame->Name(), X_WE))
      _out.Add(frame->Name(), "frame", X_WE);
  }
  // libsdformat 12.x has no //world/joint (SDFormat 1.10): nothing to list.
}

// ---------------------------------------------------------------------------
bool Exists(const std::string &_p)
{
  return !_p.empty() && access(_p.c_str(), F_OK) == 0;
}

std::string Join(const std::string &_a, const std::string &_b)
{
  if (_a.empty() || _b.empty() || _b[0] == '/')
    return _b;
  return _a.back() == '/' ? _a + _b : _a + "/" + _b;
}

std::string Dirname(const std::string &_p)
{
  const auto k = _p.find_last_of('/');
  if (k == std::string::npos)
    return ".";
  if (k == 0)
    return "/";
  return _p.substr(0, k);
}

std::string Absolute(const std::string &_p)
{
  if (!_p.empty() && _p[0] == '/')
    return _p;
  char buf[4096];
  if (getcwd(buf, sizeof(buf)) == nullptr)
    return _p;
  return Join(buf, _p);
}

std::string Relativize(const std::string &_file, const std::string &_base)
{
  if (_base.empty())
    return _file;
  std::string base = _base;
  if (base.back() != '/')
    base += '/';
  if (_file.compare(0, base.size(), base) == 0)
    return _file.substr(base.size());
  return _file;
}

// Remove every occurrence of "_base/" from a message, so that messages naming
// files below --relative-to read the same on every checkout.
std::string StripPrefix(std::string _text, const std::string &_base)
{
  if (_base.empty())
    return _text;
  const std::string prefix = _base.back() == '/' ? _base : _base + "/";
  for (auto k = _text.find(prefix); k != std::string::npos;
       k = _text.find(prefix, k))
    _text.erase(k, prefix.size());
  return _text;
}

// ---------------------------------------------------------------------------
// Console capture: libsdformat reports some problems only on std::cerr.  We
// send fd 2 to a temporary file while loading and copy it back afterwards.
class StderrCapture
{
  public: StderrCapture()
  {
    this->file = std::tmpfile();
    if (!this->file)
      return;
    std::fflush(stderr);
    std::cerr.flush();
    this->saved = dup(2);
    dup2(fileno(this->file), 2);
  }

  public: std::string Finish()
  {
    if (!this->file)
      return "";
    std::cerr.flush();
    std::fflush(stderr);
    dup2(this->saved, 2);
    close(this->saved);
    std::string text;
    std::rewind(this->file);
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof(buf), this->file)) > 0)
      text.append(buf, n);
    std::fclose(this->file);
    this->file = nullptr;
    return text;
  }

  private: std::FILE *file = nullptr;
  private: int saved = -1;
};

void Usage()
{
  std::cerr << "usage: sdf_oracle [--path DIR]... [--relative-to DIR] "
               "[--timing] FILE\n";
}
}  // namespace

int main(int argc, char **argv)
{
  std::vector<std::string> paths;
  std::string relativeTo;
  std::string file;
  bool timing = false;
  for (int i = 1; i < argc; ++i)
  {
    const std::string a = argv[i];
    if (a == "--path" && i + 1 < argc)
      paths.push_back(Absolute(argv[++i]));
    else if (a == "--relative-to" && i + 1 < argc)
      relativeTo = Absolute(argv[++i]);
    else if (a == "--timing")
      timing = true;
    else if (a == "-h" || a == "--help")
    {
      Usage();
      return 0;
    }
    else if (!a.empty() && a[0] == '-')
    {
      Usage();
      return 2;
    }
    else if (file.empty())
      file = a;
    else
    {
      Usage();
      return 2;
    }
  }
  if (file.empty())
  {
    Usage();
    return 2;
  }
  file = Absolute(file);
  const std::string fileDir = Dirname(file);
  if (const char *env = std::getenv("SDF_PATH"))
  {
    std::stringstream ss(env);
    std::string p;
    while (std::getline(ss, p, ':'))
      if (!p.empty())
        paths.push_back(Absolute(p));
  }
  paths.push_back(fileDir);
  // 12.3 tries a scheme-less relative URI against the working directory.
  if (chdir(fileDir.c_str()) != 0)
    std::cerr << "sdf_oracle: cannot chdir to " << fileDir << "\n";

  auto find = [paths](const std::string &_uri) -> std::string
  {
    std::string rest = _uri;
    const auto sep = rest.find("://");
    if (sep != std::string::npos)
      rest = rest.substr(sep + 3);
    if (!rest.empty() && rest[0] == '/')
      return Exists(rest) ? rest : std::string();
    for (const auto &dir : paths)
    {
      const std::string candidate = Join(dir, rest);
      if (Exists(candidate))
        return candidate;
    }
    return std::string();
  };
  sdf::setFindCallback(find);
  sdf::ParserConfig config;
  config.SetFindCallback(find);
  for (const auto &dir : paths)
    config.AddURIPath("model://", dir);
  // A relative file URI means "next to the including file" (composition
  // proposal 1.4.5).  12.3 would otherwise try its install share directory
  // first, where e.g. `file://gripper.sdf` finds the *spec description* of
  // <gripper> (/usr/share/sdformat12/1.9/gripper.sdf).  The URI path map is
  // consulted before anything else, so map file:// to FILE's directory, in
  // this config and in the global one used for nested includes.
  config.AddURIPath("file://", fileDir);
  sdf::ParserConfig::GlobalConfig().AddURIPath("file://", fileDir);
  for (const auto &dir : paths)
    sdf::ParserConfig::GlobalConfig().AddURIPath("model://", dir);

  Output out;
  out.topFile = file;
  sdf::Root root;

  const auto t0 = std::chrono::steady_clock::now();
  StderrCapture capture;
  sdf::Errors loadErrors = root.Load(file, config);
  const std::string console = capture.Finish();
  const auto t1 = std::chrono::steady_clock::now();
  if (!console.empty())
    std::cerr << console;

  out.loadFailed = !loadErrors.empty();
  out.errors = loadErrors;

  if (root.WorldCount() > 0)
  {
    // One world per file is what Snapframe handles; list the first.
    WalkWorld(root.WorldByIndex(0), out);
  }
  else if (const sdf::Model *model = root.Model())
  {
    out.Add(model->Name(), "model", Pose::Zero);
    WalkModel(model, model->Name(), Pose::Zero, out);
  }
  const auto t2 = std::chrono::steady_clock::now();

  std::ostringstream os;
  os << "{\"errors\": [";
  for (size_t i = 0; i < out.errors.size(); ++i)
  {
    const sdf::Error &e = out.errors[i];
    std::string path = e.FilePath() ? *e.FilePath() : std::string();
    if (!path.empty())
      path = Relativize(Absolute(path), relativeTo);
    const int line = e.LineNumber() ? *e.LineNumber() : 0;
    os << (i ? ",\n  " : "\n  ") << "{\"code\": " << JsonString(CodeName(e.Code()))
       << ", \"message\": " << JsonString(StripPrefix(e.Message(), relativeTo))
       << ", \"file\": " << JsonString(path) << ", \"line\": " << line << "}";
  }
  os << (out.errors.empty() ? "" : "\n") << "], \"frames\": {";
  for (size_t i = 0; i < out.frames.size(); ++i)
  {
    const Entry &f = out.frames[i];
    os << (i ? ",\n  " : "\n  ") << JsonString(f.name) << ": {\"kind\": "
       << JsonString(f.kind) << ", \"pose\": " << JsonPose(f.pose) << "}";
  }
  os << (out.frames.empty() ? "" : "\n") << "}}\n";
  std::cout << os.str();
  std::cout.flush();

  if (timing)
  {
    using ms = std::chrono::duration<double, std::milli>;
    std::cerr << "sdf_oracle timing: load " << ms(t1 - t0).count()
              << " ms, resolve " << ms(t2 - t1).count() << " ms, "
              << out.frames.size() << " frames\n";
  }
  return loadErrors.empty() ? 0 : 1;
}
