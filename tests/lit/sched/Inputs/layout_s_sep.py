# Axis separators on an intermediate and on a parameter, then through an index map.
sch.set_axis_separator("B", ("write", 0), [1])
sch.set_axis_separator("C", "C", axis_separators=[1])
print(sch.trace)
