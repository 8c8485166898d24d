#!/usr/bin/env python3
"""A JMX plan with N thread groups, each one user running one HTTP sampler, for timing how long
`stampede check` and a run take to load it (bench/jmx-load/run.sh).

  gen.py N [PORT] > plan.jmx

Each group and sampler has its own name (`group-00042`, `req-00042`) and path, as generated
plans do; the plan's HTTP Request Defaults point at 127.0.0.1:PORT (default 9, nothing there).
"""
import sys


def plan(n, port):
    out = sys.stdout
    out.write("""<?xml version="1.0" encoding="UTF-8"?>
<jmeterTestPlan version="1.2" properties="5.0" jmeter="5.6.3">
  <hashTree>
    <TestPlan guiclass="TestPlanGui" testclass="TestPlan" testname="groups-%d" enabled="true"/>
    <hashTree>
      <ConfigTestElement guiclass="HttpDefaultsGui" testclass="ConfigTestElement" testname="HTTP Request Defaults" enabled="true">
        <stringProp name="HTTPSampler.domain">127.0.0.1</stringProp>
        <stringProp name="HTTPSampler.port">%s</stringProp>
        <stringProp name="HTTPSampler.protocol">http</stringProp>
      </ConfigTestElement>
      <hashTree/>
""" % (n, port))
    for i in range(n):
        out.write("""      <ThreadGroup guiclass="ThreadGroupGui" testclass="ThreadGroup" testname="group-%05d" enabled="true">
        <stringProp name="ThreadGroup.on_sample_error">continue</stringProp>
        <elementProp name="ThreadGroup.main_controller" elementType="LoopController" guiclass="LoopControlPanel" testclass="LoopController" testname="Loop Controller" enabled="true">
          <boolProp name="LoopController.continue_forever">false</boolProp>
          <stringProp name="LoopController.loops">1</stringProp>
        </elementProp>
        <stringProp name="ThreadGroup.num_threads">1</stringProp>
        <stringProp name="ThreadGroup.ramp_time">0</stringProp>
        <boolProp name="ThreadGroup.scheduler">false</boolProp>
      </ThreadGroup>
      <hashTree>
        <HTTPSamplerProxy guiclass="HttpTestSampleGui" testclass="HTTPSamplerProxy" testname="req-%05d" enabled="true">
          <elementProp name="HTTPsampler.Arguments" elementType="Arguments">
            <collectionProp name="Arguments.arguments"/>
          </elementProp>
          <stringProp name="HTTPSampler.path">/item/%05d</stringProp>
          <stringProp name="HTTPSampler.method">GET</stringProp>
          <boolProp name="HTTPSampler.follow_redirects">true</boolProp>
          <boolProp name="HTTPSampler.use_keepalive">true</boolProp>
        </HTTPSamplerProxy>
        <hashTree/>
      </hashTree>
""" % (i, i, i))
    out.write("""    </hashTree>
  </hashTree>
</jmeterTestPlan>
""")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: gen.py N [PORT] > plan.jmx")
    plan(int(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else "9")
