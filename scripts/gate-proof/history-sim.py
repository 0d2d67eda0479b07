#!/usr/bin/env python3
"""history-sim.py DIR: the power of history's step test on real sessions.

DIR is a gate-proof.sh output directory with session documents (fw-A,
fw-B, slow-s5). Each session is its median of write_lat 64 B runs' p50.
Trials put 8 to 16 A/A sessions before three slowdown sessions and ask
whether a permutation test of E-divisive's statistic finds a split:
over all splits (as rdma-bench history does), or only over splits among
the newest 5 sessions; and the same on A/A series of equal length
(false steps). A prototype for the investigation of 2026-11-29
(docs/investigations/2026-11-29-calm-day-gates.md), not the command.
"""
import json,glob,random,statistics as st,sys,os
fs=sorted(glob.glob(os.path.join(sys.argv[1],'sessions','*.json')), key=lambda f: json.load(open(f))['started_at'])
def med(f):
    for r in json.load(open(f))['results']:
        if r['workload']=='write_lat' and r['size_bytes']==64:
            return st.median([x['latency_us']['p50'] for x in r['runs']])
A=[med(f) for f in fs if 'fw-' in f]; S=[med(f) for f in fs if 'slow-s5' in f]
def Q(x,t):
    n=len(x); L=x[:t]; R=x[t:]; m,k=len(L),len(R)
    cross=sum(abs(a-b) for a in L for b in R)
    l=sum(abs(L[i]-L[j]) for i in range(m) for j in range(i+1,m))
    r=sum(abs(R[i]-R[j]) for i in range(k) for j in range(i+1,k))
    return m*k/n*(2*cross/(m*k)-l/(m*(m-1)/2)-r/(k*(k-1)/2))
def maxQ(x,ts): return max(Q(x,t) for t in ts)
def test(x,ts,alpha,rng,perms=199):
    q=maxQ(x,ts); over=0; y=list(x)
    for _ in range(perms):
        rng.shuffle(y)
        if maxQ(y,ts)>=q: over+=1
    return (over+1)/(perms+1)<=alpha
rng=random.Random(1)
for alpha in (0.01,0.05):
  hitE=hitT=0; fE=fT=0; N=60
  for tr in range(N):
    k=rng.randint(8,16); s=rng.randint(0,len(A)-k)
    x=A[s:s+k]+rng.sample(S,3); n=len(x)
    allt=range(2,n-1); tail=range(max(2,n-5),n-1)
    hitE+=test(x,allt,alpha,rng); hitT+=test(x,tail,alpha,rng)
    y=A[s:s+k+3]  if s+k+3<=len(A) else A[-(k+3):]
    allt=range(2,len(y)-1); tail=range(max(2,len(y)-5),len(y)-1)
    fE+=test(y,allt,alpha,rng); fT+=test(y,tail,alpha,rng)
  print(f'alpha {alpha}: power all-splits {hitE}/{N}, newest-5 splits {hitT}/{N}; A/A false all {fE}/{N}, tail {fT}/{N}')
