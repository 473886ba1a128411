// Reading points from text and reporting on polygons.
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "geometry.h"

std::vector<Point> parse_points(const std::string& text) {
  // Accepts "x,y" pairs separated by spaces, semicolons or new lines;
  // malformed pairs are skipped.
  std::vector<Point> out;
  std::string token;
  std::istringstream in(text);
  while (in >> token) {
    for (std::string part; !token.empty();) {
      size_t semi = token.find(';');
      part = token.substr(0, semi);
      token = semi == std::string::npos ? "" : token.substr(semi + 1);
      double x = 0, y = 0;
      char comma = 0;
      std::istringstream pair(part);
      if (pair >> x >> comma >> y && comma == ',') out.push_back(Point{x, y});
    }
  }
  return out;
}

static std::string format_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

std::string describe_polygon(const std::vector<Point>& poly) {
  std::ostringstream out;
  Box box = bounding_box(poly);
  Point c = centroid(poly);
  out << poly.size() << " vertices, area " << format_number(polygon_area(poly))
      << ", perimeter " << format_number(perimeter(poly)) << ", centroid ("
      << format_number(c.x) << ", " << format_number(c.y) << "), box "
      << format_number(box.max.x - box.min.x) << " x " << format_number(box.max.y - box.min.y);
  return out.str();
}

static bool is_convex(const std::vector<Point>& poly) {
  // Every turn has the same sign (zero turns are ignored).
  int sign = 0;
  for (size_t i = 0; i < poly.size(); ++i) {
    double t = cross(poly[i], poly[(i + 1) % poly.size()], poly[(i + 2) % poly.size()]);
    int s = (t > 0) - (t < 0);
    if (s != 0 && sign != 0 && s != sign) return false;
    if (s != 0) sign = s;
  }
  return true;
}

int main(int argc, char** argv) {
  std::string text = argc > 1 ? argv[1] : "0,0 4,0 4,3 0,3; 2,5";
  std::vector<Point> pts = parse_points(text);
  std::vector<Point> hull = convex_hull(pts);
  std::printf("points: %zu, hull: %s\n", pts.size(), describe_polygon(hull).c_str());
  std::printf("hull convex: %s\n", is_convex(hull) ? "yes" : "no");
  std::printf("closest pair: %s\n", format_number(closest_pair_distance(pts)).c_str());
  return 0;
}
