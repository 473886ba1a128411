#include "geometry.h"

#include <algorithm>
#include <cmath>
#include <limits>

double distance(Point a, Point b) {
  return std::hypot(a.x - b.x, a.y - b.y);
}

// z component of (a - o) x (b - o): > 0 when o, a, b turn counter-clockwise.
double cross(Point o, Point a, Point b) {
  return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

double polygon_area(const std::vector<Point>& poly) {
  // Shoelace formula; the sign tells the orientation, the area is its size.
  double twice = 0.0;
  for (size_t i = 0; i < poly.size(); ++i) {
    const Point& a = poly[i];
    const Point& b = poly[(i + 1) % poly.size()];
    twice += a.x * b.y - b.x * a.y;
  }
  return std::fabs(twice) / 2.0;
}

double perimeter(const std::vector<Point>& poly) {
  double total = 0.0;
  for (size_t i = 0; i < poly.size(); ++i) {
    total += distance(poly[i], poly[(i + 1) % poly.size()]);
  }
  return total;
}

Point centroid(const std::vector<Point>& poly) {
  // Area-weighted centroid; falls back to the vertex mean for a degenerate
  // (zero-area) polygon.
  double a = 0.0, cx = 0.0, cy = 0.0;
  for (size_t i = 0; i < poly.size(); ++i) {
    const Point& p = poly[i];
    const Point& q = poly[(i + 1) % poly.size()];
    double f = p.x * q.y - q.x * p.y;
    a += f;
    cx += (p.x + q.x) * f;
    cy += (p.y + q.y) * f;
  }
  if (std::fabs(a) < 1e-12) {
    Point mean{0.0, 0.0};
    for (const Point& p : poly) {
      mean.x += p.x / poly.size();
      mean.y += p.y / poly.size();
    }
    return mean;
  }
  return Point{cx / (3.0 * a), cy / (3.0 * a)};
}

Box bounding_box(const std::vector<Point>& pts) {
  const double inf = std::numeric_limits<double>::infinity();
  Box box{{inf, inf}, {-inf, -inf}};
  for (const Point& p : pts) {
    box.min.x = std::min(box.min.x, p.x);
    box.min.y = std::min(box.min.y, p.y);
    box.max.x = std::max(box.max.x, p.x);
    box.max.y = std::max(box.max.y, p.y);
  }
  return box;
}

std::vector<Point> convex_hull(std::vector<Point> pts) {
  // Andrew's monotone chain: sort, then build the lower and upper chains.
  std::sort(pts.begin(), pts.end(), [](Point a, Point b) {
    return a.x < b.x || (a.x == b.x && a.y < b.y);
  });
  if (pts.size() < 3) return pts;
  std::vector<Point> hull(2 * pts.size());
  size_t k = 0;
  for (size_t i = 0; i < pts.size(); ++i) {
    while (k >= 2 && cross(hull[k - 2], hull[k - 1], pts[i]) <= 0) --k;
    hull[k++] = pts[i];
  }
  for (size_t i = pts.size() - 1, lower = k + 1; i > 0; --i) {
    while (k >= lower && cross(hull[k - 2], hull[k - 1], pts[i - 1]) <= 0) --k;
    hull[k++] = pts[i - 1];
  }
  hull.resize(k - 1);
  return hull;
}

bool point_in_polygon(Point p, const std::vector<Point>& poly) {
  // Ray casting to the right: an odd number of crossings means inside.
  bool inside = false;
  for (size_t i = 0, j = poly.size() - 1; i < poly.size(); j = i++) {
    const Point& a = poly[i];
    const Point& b = poly[j];
    bool straddles = (a.y > p.y) != (b.y > p.y);
    if (straddles && p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x) {
      inside = !inside;
    }
  }
  return inside;
}

static bool on_segment(Point p, Point q, Point r) {
  return std::min(p.x, r.x) <= q.x && q.x <= std::max(p.x, r.x) &&
         std::min(p.y, r.y) <= q.y && q.y <= std::max(p.y, r.y);
}

bool segments_intersect(Point p1, Point p2, Point q1, Point q2) {
  double d1 = cross(q1, q2, p1);
  double d2 = cross(q1, q2, p2);
  double d3 = cross(p1, p2, q1);
  double d4 = cross(p1, p2, q2);
  if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))) {
    return true;
  }
  // Collinear cases: an end point lying on the other segment.
  return (d1 == 0 && on_segment(q1, p1, q2)) || (d2 == 0 && on_segment(q1, p2, q2)) ||
         (d3 == 0 && on_segment(p1, q1, p2)) || (d4 == 0 && on_segment(p1, q2, p2));
}

Point rotate_about(Point p, Point center, double degrees) {
  const double rad = degrees * 3.14159265358979323846 / 180.0;
  const double c = std::cos(rad), s = std::sin(rad);
  const double dx = p.x - center.x, dy = p.y - center.y;
  return Point{center.x + dx * c - dy * s, center.y + dx * s + dy * c};
}

double closest_pair_distance(std::vector<Point> pts) {
  // Sort by x and sweep, comparing each point only with the ones whose x is
  // within the best distance found so far.
  std::sort(pts.begin(), pts.end(), [](Point a, Point b) { return a.x < b.x; });
  double best = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < pts.size(); ++i) {
    for (size_t j = i + 1; j < pts.size() && pts[j].x - pts[i].x < best; ++j) {
      best = std::min(best, distance(pts[i], pts[j]));
    }
  }
  return best;
}
