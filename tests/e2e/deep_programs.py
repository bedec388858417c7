"""deep_programs.py - long but legal programs: an N-term sum, an N-branch elif
chain and N bindings in a row each run (interpreter and native) with the
right result, and a program nested past TVS_MAX_NESTING is refused with
"program too deeply nested", never a crash (issue 19).
usage: deep_programs.py TVS WORKDIR N (N=100000; TVS_TEST_QUICK: smaller)"""
import os
import subprocess
import sys

HDR = '''@T.prim_func
def f(A: T.Buffer((4,), "int32"), B: T.Buffer((4,), "int32")):
'''


def chain(n):
    return HDR + '''    for i in range(4):
        with T.block("b"):
            vi = T.axis.spatial(4, i)
            B[vi] = ''' + ' + '.join(['A[vi]'] * n) + '\n'


def elifs(n):
    s = HDR + '    for i in range(4):\n        if A[i] == 0:\n            B[i] = 0\n'
    s += ''.join(f'        elif A[i] == {k}:\n            B[i] = {k + 1}\n' for k in range(1, n))
    return s + '        else:\n            B[i] = -1\n'


def lets(n):
    s = HDR + '    x0 = A[0]\n'
    s += ''.join(f'    x{k} = x{k - 1} + 1\n' for k in range(1, n))
    return s + f'    B[0] = x{n - 1}\n    B[1] = x{n // 2}\n'


def run(tvs, args):
    p = subprocess.run([tvs] + args, capture_output=True, text=True, timeout=900)
    return p.returncode, p.stdout + p.stderr


def main():
    tvs, work, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    os.makedirs(work, exist_ok=True)
    a = os.path.join(work, 'a.npy')
    import numpy as np
    np.save(a, np.array([3, 1, 0, 7], dtype=np.int32))
    fails = 0
    # (name, text, targets, expected B)
    cases = [('chain', chain(n), ['interp', 'cpu'], [3 * n, n, 0, 7 * n]),
             ('elif', elifs(n), ['interp'], [4, 2, 0, 8]),
             ('lets', lets(n), ['interp'], [3 + n - 1, 3 + n // 2, 0, 0])]
    for name, text, targets, want in cases:
        path = os.path.join(work, f'{name}.tvs')
        with open(path, 'w') as f:
            f.write(text)
        for t in targets:
            out = os.path.join(work, f'{name}_{t}')
            rc, msg = run(tvs, ['run', path, '--target', t, '--input', f'A={a}', '-o', out])
            got = np.load(os.path.join(out, 'B.npy')).tolist() if rc == 0 else None
            if name == 'lets' and got:
                got = got[:2] + [0, 0]
            if rc != 0 or got != want:
                fails += 1
                print(f'FAIL: {name} n={n} --target {t}: exit {rc}, B={got}, want {want}\n{msg[-800:]}')
            else:
                print(f'ok: {name} n={n} --target {t}')
    # past the limit: a clear error (not a crash) from every command
    deep = os.path.join(work, 'deep.tvs')
    with open(deep, 'w') as f:
        f.write(chain(150002))
    for args in (['check', deep], ['run', deep, '--target', 'interp']):
        rc, msg = run(tvs, args)
        if rc != 1 or 'program too deeply nested' not in msg:
            fails += 1
            print(f'FAIL: tvs {args[0]} on a 150,002-term sum: exit {rc}\n{msg[-800:]}')
        else:
            print(f'ok: tvs {args[0]} refuses a 150,002-term sum')
    print(f'deep programs: {fails} failed')
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
