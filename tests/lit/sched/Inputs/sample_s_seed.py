# Two schedules with the same seed draw the same decisions.
s1 = tvm.tir.Schedule(Module, seed=2024)
s2 = tvm.tir.Schedule(Module, seed=2024)
for_doc = 0
l1 = s1.get_loops("C")
l2 = s2.get_loops("C")
a = s1.sample_perfect_tile(l1[0], n=4, max_innermost_factor=-1)
b = s2.sample_perfect_tile(l2[0], n=4, max_innermost_factor=-1)
c = s1.sample_categorical([1, 2, 3, 4], [0.25, 0.25, 0.25, 0.25])
d = s2.sample_categorical([1, 2, 3, 4], [0.25, 0.25, 0.25, 0.25])
e = s1.sample_compute_location("C")
f = s2.sample_compute_location("C")
print(s1.trace)
print(s2.trace)
