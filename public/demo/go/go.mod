module example.com/csvstat

go 1.21
