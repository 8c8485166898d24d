# Usage: python3 gen_sets.py CORPUS_DIR > sets.tsv (`{corpus}` in a value stands for the corpus
# directory wherever the tests find it).
# Generates, per corpus plan, the --set replacements its shell script would have made:
# numbers for the workload placeholders, loopback for hosts, and for each file placeholder
# the CSV in the plan's directory whose width fits the CSV Data Set that reads it.
import os, re, glob, sys
import xml.etree.ElementTree as ET
ROOT=sys.argv[1]
fixed={'THREADS_COUNT':'2','RAMPUP_TIME':'1','CTRL_LOOPS':'1','PATH_PREFIX':'/api','API_KEY':'test-key','ACCESS_TOKEN':'test-token',
 'HOST':'127.0.0.1','PORT':'8080','PROTOCOL':'http','protocol':'http','TXN_ID':'txn','THREAD_ID':'1','SCENARIO_ID':'s1'}
def width(path, delim):
    try:
        lines=[l for l in open(path,encoding='utf-8-sig',errors='replace').read().splitlines() if l.strip()]
    except OSError: return None, None
    if not lines: return None, None
    return len(lines[0].split(delim)), lines[0]
for f in sorted(glob.glob(ROOT+'/**/*.jmx', recursive=True)):
    rel=os.path.relpath(f,ROOT); d=os.path.dirname(f)
    text=open(f,encoding='utf-8',errors='replace').read()
    sets=[]
    def add(t,v):
        if not any(s[0]==t for s in sets): sets.append((t,v))
    if '/tmp/sunbird-perf-tests/' in text: add('/tmp/sunbird-perf-tests/', '{corpus}/')
    if 'CSV_FILE/' in text: add('CSV_FILE/', os.path.relpath(d, d)+'/')
    try: tree=ET.parse(f)
    except ET.ParseError: 
        print(rel+'\t'); continue
    udv={}
    for el in tree.iter('elementProp'):
        n=el.find("stringProp[@name='Argument.name']"); v=el.find("stringProp[@name='Argument.value']")
        if n is not None and v is not None and n.text: udv[n.text]=v.text or ''
    csvs=sorted(glob.glob(d+'/*.csv'))
    used=set()
    for ds in tree.iter('CSVDataSet'):
        fn=(ds.findtext("stringProp[@name='filename']") or '')
        names=(ds.findtext("stringProp[@name='variableNames']") or '')
        delim=(ds.findtext("stringProp[@name='delimiter']") or ',').replace('\\t','\t')
        m=re.fullmatch(r'\$\{(\w+)\}', fn.strip())
        token = udv.get(m.group(1)) if m else fn.strip()
        if not token or not re.fullmatch(r'[A-Z][A-Za-z0-9_]*', token) : continue
        want=len(names.split(delim if delim in names else ',')) if names.strip() else None
        hint=(m.group(1) if m else token).lower().replace('csvfile','').replace('csv_','').replace('_file','')
        best=None
        for c in csvs:
            w,_=width(c, delim)
            if w is None or (want and w!=want): continue
            score=(hint[:4] in os.path.basename(c).lower(), c not in used)
            if best is None or score>best[0]: best=(score,c)
        if best: used.add(best[1]); add(token, os.path.basename(best[1]))
    for v in sorted(set(re.findall(r'>([^<>]*)<', text))):
        for t in re.findall(r'\b(?:[A-Z][A-Z0-9]*_[A-Z0-9_]+|HOST|PORT|PROTOCOL|DATADIR|protocol)\b', v):
            if t in ('DO_MULTIPART_POST','NOT_FOUND'): continue
            if t in fixed: add(t, fixed[t])
            elif t in ('DATA_DIR','DATADIR'): add(t, '.')
    # Variables the plan reads but never defines (its script passed them with sed too).
    for name in ('numThreads','rampupTime','ctrlLoops'):
        if '${'+name+'}' in text and not re.search(r'<stringProp name="Argument.name">'+name+'<', text):
            add('${'+name+'}', {'numThreads':'2','rampupTime':'1','ctrlLoops':'1'}[name])
    print(rel+'\t'+'\t'.join(f'{t}={v}' for t,v in sets))
