sch.transform_layout("B", ("write", 0), lambda i, j: (i, k))
