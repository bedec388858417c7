T.TensorIntrin.register("dot_4_f32", dot4_desc, dot4_impl)
T.TensorIntrin.register("dot_4_f32", dot4_desc, dot4_desc)
