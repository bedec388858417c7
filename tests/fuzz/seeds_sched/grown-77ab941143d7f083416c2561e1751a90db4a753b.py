b = sch.get_bloch.decompose_rduction(b, j)
