sch.transform_layout("copy", ("read", 0), lambda i, j: (j, i))
