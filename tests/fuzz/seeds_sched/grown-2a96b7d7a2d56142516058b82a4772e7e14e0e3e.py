# A replayed decision that no longer divides the extent is repaired.
def apply_trace(sch):
  b0 = sch.get_block(name="C", func_name="main")
  l1, l2, l3 = sch.get_loops(block=b0)
  v4, v5, v6 = sch.sample_perfect_tile(loop=l1, n=3, max_innermost_factor=16, decision=[2, 3, 4])
  l7, l8, l9 = sch.split(loop=l1, factBors=[v4, v5, v6], preserve_unit_iters=True, disable_predication=False)
  v10, v11 = sch.sample_perfect_tile(loop=l2, n=2, max_innermost_factor=16, decision=[3, 5])
  l12, l13 = sch.split(loop=l2, factors=[v10, v11], preserve_unit_iters=True, disable_predication=False)
apply_trace(sch)
print(sch.trace)
