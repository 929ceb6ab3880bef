// sdf_joints: what libsdformat 12.3 reads of the joints of a world's models.
//
// Usage: sdf_joints FILE
//
// Loads FILE with sdf::Root::Load and prints one JSON object on stdout:
//
//   {"errors": [message, ...],
//    "joints": {"<model>::<joint>": {"type": int (sdf::JointType), "parent": str,
//               "child": str, "axis": [x, y, z] (in the model frame) or null,
//               "lower": float or null, "upper": float or null}}}
//
// The frame oracle (tests/oracle/sdf_oracle) gives poses only; the floor plan tests
// need the joint types and limits libsdformat itself reads.  Top-level models of the
// first world only (the floor plan worlds nest nothing).  Exit status 0 when Root::Load
// reported no errors, 1 when it did, 2 on a usage error.

#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>

#include <sdf/Joint.hh>
#include <sdf/JointAxis.hh>
#include <sdf/Model.hh>
#include <sdf/Root.hh>
#include <sdf/World.hh>

static std::string Quote(const std::string &_text)
{
  std::ostringstream out;
  out << '"';
  for (char c : _text)
  {
    if (c == '"' || c == '\\')
      out << '\\' << c;
    else if (static_cast<unsigned char>(c) < 0x20)
      out << "\\u" << std::hex << std::setw(4) << std::setfill('0')
          << static_cast<int>(c) << std::dec;
    else
      out << c;
  }
  out << '"';
  return out.str();
}

static std::string Number(double _value)
{
  if (!std::isfinite(_value) || std::fabs(_value) >= 1e15)
    return "null";   // libsdformat's "no limit" defaults are +-1e16
  std::ostringstream out;
  out << std::setprecision(15) << _value;
  return out.str();
}

int main(int argc, char **argv)
{
  if (argc != 2)
  {
    std::cerr << "usage: sdf_joints FILE\n";
    return 2;
  }
  sdf::Root root;
  const sdf::Errors errors = root.Load(argv[1]);
  std::cout << "{\"errors\": [";
  for (size_t i = 0; i < errors.size(); ++i)
    std::cout << (i ? ", " : "") << Quote(errors[i].Message());
  std::cout << "],\n \"joints\": {";
  bool first = true;
  const sdf::World *world = root.WorldCount() ? root.WorldByIndex(0) : nullptr;
  for (uint64_t m = 0; world && m < world->ModelCount(); ++m)
  {
    const sdf::Model *model = world->ModelByIndex(m);
    for (uint64_t j = 0; j < model->JointCount(); ++j)
    {
      const sdf::Joint *joint = model->JointByIndex(j);
      const sdf::JointAxis *axis = joint->Axis(0);
      std::cout << (first ? "\n  " : ",\n  ")
                << Quote(model->Name() + "::" + joint->Name()) << ": {\"type\": "
                << static_cast<int>(joint->Type()) << ", \"parent\": "
                << Quote(joint->ParentLinkName()) << ", \"child\": "
                << Quote(joint->ChildLinkName()) << ", \"axis\": ";
      first = false;
      if (axis)
      {
        ignition::math::Vector3d xyz;
        const sdf::Errors axisErrors = axis->ResolveXyz(xyz, "__model__");
        if (axisErrors.empty())
          std::cout << "[" << Number(xyz.X()) << ", " << Number(xyz.Y()) << ", "
                    << Number(xyz.Z()) << "]";
        else
          std::cout << "null";
        std::cout << ", \"lower\": " << Number(axis->Lower())
                  << ", \"upper\": " << Number(axis->Upper()) << "}";
      }
      else
      {
        std::cout << "null, \"lower\": null, \"upper\": null}";
      }
    }
  }
  std::cout << "\n}}\n";
  return errors.empty() ? 0 : 1;
}
