// geometry: small 2-D computational geometry helpers (RepoQA Web demo repo).
#pragma once

#include <string>
#include <vector>

struct Point {
  double x;
  double y;
};

struct Box {
  Point min;
  Point max;
};

double distance(Point a, Point b);
double cross(Point o, Point a, Point b);
double polygon_area(const std::vector<Point>& poly);
double perimeter(const std::vector<Point>& poly);
Point centroid(const std::vector<Point>& poly);
Box bounding_box(const std::vector<Point>& pts);
std::vector<Point> convex_hull(std::vector<Point> pts);
bool point_in_polygon(Point p, const std::vector<Point>& poly);
bool segments_intersect(Point p1, Point p2, Point q1, Point q2);
Point rotate_about(Point p, Point center, double degrees);
double closest_pair_distance(std::vector<Point> pts);
std::vector<Point> parse_points(const std::string& text);
std::string describe_polygon(const std::vector<Point>& poly);
