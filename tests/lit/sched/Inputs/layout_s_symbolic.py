# Symbolic padding: n rows tiled by 4 give (n + 3) // 4 tiles; the row-major
# writer of B stores the pad value where axis0 * 4 + axis2 >= n.
sch.transform_layout("B", "B", lambda i, j: (i // 4, j, i % 4), pad_value=0.0)
sch.transform_block_layout("C", lambda i, j: (j, i))
