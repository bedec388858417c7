sch.transform_layout("C", ("read", 0), lambda i, j: (j, i))
