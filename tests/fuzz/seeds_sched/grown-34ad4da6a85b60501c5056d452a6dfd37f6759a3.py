# A row sum with itim_func
def main(A: T.Buffer((8, 8), "float32"), S: T.Buffer((8,), "float32")):
    for i in T.serial(8):
        with T.block("S"):
            vi = T.axis.spatial(8, i)
            S[vi] = T.float32(0)
            for k in range(8):
                S[vi] = S[vi] + A[vi, k]
