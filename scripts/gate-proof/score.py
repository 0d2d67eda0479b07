#!/usr/bin/env python3
"""usage: python3 scripts/gate-proof/score.py DIR (gate-proof.sh width:... output)
Score A/A width gates (one final look): per row the signed-rank z of
r = ln(candidate/base); sum z^2 against chi2(k); the mean r of pairs whose
two runs were both clean against pairs with an unclean run. stdlib only."""
import glob, json, math, statistics as st, sys
def wil_z(x):
    n = len(x); order = sorted(range(n), key=lambda i: abs(x[i]))
    rk = {i: k + 1 for k, i in enumerate(order)}
    wp = sum(rk[i] for i in range(n) if x[i] > 0)
    return (wp - n*(n+1)/4) / math.sqrt(n*(n+1)*(2*n+1)/24)
def chi2_sf(x, k):  # Wilson-Hilferty approximation, fine for k >= 5
    z = ((x/k)**(1/3) - (1 - 2/(9*k))) / math.sqrt(2/(9*k))
    return 0.5*math.erfc(z/math.sqrt(2))
fmt = lambda v: '-' if v is None else f'{v:+.1f}%'
zs = []
for f in sorted(glob.glob(sys.argv[1] + '/*/gate-*.json')):
    d = json.load(open(f))
    for row in d['rows']:
        r = [math.log(c/b) for b, c in zip(row['base'], row['candidate'])]
        z = wil_z(r); zs.append(z)
        bc, cc = row.get('base_clean') or [], row.get('candidate_clean') or []
        both = [v for v, a, b in zip(r, bc, cc) if a is not False and b is not False]
        some = [v for v, a, b in zip(r, bc, cc) if a is False or b is False]
        f_ = lambda xs: f"{100*st.mean(xs):+.1f}% ({len(xs)})" if xs else "- (0)"
        print(f"{f.split('/')[-2]:>12} {row['point']['workload'] if isinstance(row['point'], dict) else row['point']!s:>10} "
              f"pairs {len(r):3d} est {row['estimate_pct']:+6.1f}% [{fmt(row['lo_pct'])}, {fmt(row['hi_pct'])}] "
              f"{row['decision']:>9} z {z:+.2f} sd(r) {st.stdev(r):.3f}  clean pairs {f_(both)}  with an unclean run {f_(some)}")
k = len(zs); s = sum(z*z for z in zs)
print(f"rows {k}: sum z^2 = {s:.1f} on {k} df, p = {chi2_sf(s, k):.3f}; mean z {st.mean(zs):+.2f}")
