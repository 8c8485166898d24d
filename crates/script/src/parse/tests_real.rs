//! A dozen real scripts from public JMeter plans (`../shared/corpus/public-jmx/`), verbatim:
//! each parses, into the statements counted here.

use super::super::ast::StmtKind;
use super::super::Lang;
use super::parse;

/// (where it comes from, its language, imports, top-level statements, the text); `usize::MAX`
/// imports: refused as a class declaration at the line given instead of the statements.
const REAL: &[(&str, Lang, usize, usize, &str)] = &[
    (
        "Blazemeter+taurus/tests/resources/jmeter/jmx/jsr223.jmx JSR223 PostProcessor",
        Lang::JavaScript,
        0,
        11,
        r###"log.info("bye");
line("2");
line("3");
line("4");
line("5");
line("6");
line("7");
line("8");
line("9");
line("10");
line("11");
"###,
    ),
    (
        "Blazemeter+jmeter-bzm-plugins/parallel/Demo_v2.jmx JSR223 PostProcessor",
        Lang::Groovy,
        2,
        8,
        r###"import java.util.ArrayList;
import java.util.Collections;

ids = new ArrayList();
idCount = Integer.parseInt(vars.get("urls_matchNr"));
for (int i=0; i<idCount; i++){
  ids.add(vars.get("urls_" + String.valueOf(i+1)));
}

Collections.shuffle(ids);

builder = new StringBuilder();
for (String id: ids){
  builder.append(id);
  builder.append(",");
}
builder.deleteCharAt(builder.length()-1);
vars.put("urllist", builder.toString());"###,
    ),
    (
        "apache+jmeter/xdocs/demos/JDBC-Pre-Post-Processor.jmx Prepare Portfolio List for Price Cut-Off",
        Lang::Groovy,
        2,
        1,
        r###"import groovy.sql.Sql
import org.apache.jmeter.protocol.jdbc.config.DataSourceElement
try {
    // build Pfo List
    println("Building Portfolio List")
    def pfoList = "<PfoList>"
    def pfoNr = 1
    def pfo = vars.get("Pfo_" + pfoNr)
    while(pfo != null) {
        println("Pfo: $pfo");
        pfoList = pfoList + "<Pfo ID='$pfo' EmptyValuation='true' PropagatePrice='true'/>"
        pfoNr++
        pfo = vars.get("Pfo_" + pfoNr)
    }
    pfoList = pfoList + "</PfoList>"
    vars.put("PfoListXML", pfoList)
} catch (Exception e) {
    println(e.toString());
}"###,
    ),
    (
        "apache+jmeter/bin/templates/GroovyJSR223Sampler.jmx JSR223Sampler using Groovy",
        Lang::Groovy,
        0,
        3,
        r###"def variable = vars["varName"];
log.info("Example");

vars.put("newVar", "a computed value");"###,
    ),
    (
        "apache+jmeter/bin/testfiles/Http4ImplPreemptiveBasicAuth.jmx JSA_CheckAuthorization",
        Lang::Groovy,
        0,
        3,
        r###"boolean mustHaveAuthHeader = vars["has_auth_header"].toBoolean();
String requestHeaders = SampleResult.getRequestHeaders();
if(mustHaveAuthHeader) {
	if(requestHeaders.contains("Authorization")) {
		if(requestHeaders.contains("Authorization: Basic "+vars["headerValue"])) {
			AssertionResult.setFailure(false);
		} else {
			AssertionResult.setFailure(true);
			AssertionResult.setFailureMessage("Wrong authorization header value:"+requestHeaders);
		}
	} else {
		AssertionResult.setFailure(true);
		AssertionResult.setFailureMessage("Request has no authorization header while it must have:"+requestHeaders);
	}
} else {
	if(requestHeaders.contains("Authorization")) {
		AssertionResult.setFailure(true);
		AssertionResult.setFailureMessage("Request has authorization header while it shouldn't have any:"+requestHeaders);
	} 
}
"###,
    ),
    (
        "apache+jmeter/bin/testfiles/JDBC_TESTS.jmx JSR223_CHECK_POOL_PREINIT_ASSERTION",
        Lang::Groovy,
        1,
        9,
        r###"
import groovy.sql.Sql

def url = 'jdbc:hsqldb:mem:mymemdb'
def user = 'SA'
def password = ''
def driver = 'org.hsqldb.jdbcDriver'
def sql = Sql.newInstance(url, user, password, driver)
def row = sql.firstRow('select count(*) from INFORMATION_SCHEMA.system_sessions')
def sessionNum = row[0]

try {
    assert sessionNum == 2
} catch (Error err) {
    AssertionResult.setFailure(true)
    AssertionResult.setFailureMessage("Got " + sessionNum + " sessions on the database, but expected 2 sessions. (1 preinitialized session from the connection pool, and 1 from the above jdbc call.)");
}

sql.close()
"###,
    ),
    (
        "apache+jmeter/bin/testfiles/JMS_TESTS.jmx BSS_startActiveMQ",
        Lang::Groovy,
        5,
        5,
        r###"import org.apache.activemq.broker.BrokerService;
import org.apache.activemq.broker.BrokerFactory;
import org.apache.jmeter.util.JMeterUtils;
import java.nio.file.Path;
import kotlin.io.path.PathsKt;

Path activemqData = Path.of(JMeterUtils.getJMeterHome(), "bin/activemq-data");
log.info("Deleting {}", activemqData);
PathsKt.deleteRecursively(activemqData);

log.info("Creating activemq config from {}", JMeterUtils.getJMeterHome()+ "/bin/testfiles/activemq.xml");
try {
	String path = JMeterUtils.getJMeterHome()+ "/bin/testfiles/activemq.xml";
	path = path.replace('\\', '/');
	path = path.replaceAll(" ", "%20");
	BrokerService broker = BrokerFactory.createBroker("xbean:file:"+path, true);
	props.put("ACTIVEMQ_BROKER", broker);
} catch(Exception ex) {
	log.error("Error configuring ActiveMQ", ex);
}
"###,
    ),
    (
        "apache+jmeter/bin/testfiles/TCP_TESTS.jmx MinaTcpServerInitializer",
        Lang::Groovy,
        // Declares a class (it parses; its library parent is refused when it resolves).
        15,
        12,
        r###"import java.util.Date;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.Charset;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.apache.mina.core.session.IdleStatus;
import org.apache.mina.core.service.IoHandlerAdapter;
import org.apache.mina.core.session.IoSession;
import org.apache.mina.core.service.IoAcceptor;
import org.apache.mina.core.session.IdleStatus;
import org.apache.mina.filter.codec.ProtocolCodecFilter;
import org.apache.mina.filter.codec.textline.TextLineCodecFactory;
import org.apache.mina.filter.logging.LoggingFilter;
import org.apache.mina.transport.socket.nio.NioSocketAcceptor;

class TimeServerHandler extends IoHandlerAdapter
{
	private static final String EOL = "\n";
    Logger log = LoggerFactory.getLogger(TimeServerHandler.class);
    public void exceptionCaught( IoSession session, Throwable cause ) throws Exception
    {
    	   log.error("Exception occured", cause);
    	   session.closeNow();
    }

    public void messageReceived( IoSession session, Object message ) throws Exception
    {
        String str = message.trim().toString();
        log.info("Received {}", str);

        String[] words = str.split(" ");
        if(words[0].equalsIgnoreCase("quit") ) {
            session.close();
        }
	   else if(words[0].equalsIgnoreCase("sleep")) {
	   	log.info("Sleeping for {}ms", words[1].toLong());
        	Thread.sleep(words[1].toLong());
	     Date date = new Date();
        	session.write( date.format("dd/MM/yyyy HH:mm:ss")+EOL );
        }
        else {
	        Date date = new Date();
     	   session.write( date.format("dd/MM/yyyy HH:mm:ss")+EOL );
        }
	   log.info("Message written...");
    }

    public void sessionIdle( IoSession session, IdleStatus status ) throws Exception
    {
        log.info("IDLE {}", session.getIdleCount(status));
    }
}

IoAcceptor acceptor = new NioSocketAcceptor();
acceptor.getFilterChain().addLast( "logger", new LoggingFilter() );
acceptor.getFilterChain().addLast( "codec", new ProtocolCodecFilter( new TextLineCodecFactory( Charset.forName( "UTF-8" ))));
acceptor.setHandler( new TimeServerHandler() );
acceptor.setReuseAddress(true);
acceptor.getSessionConfig().setReadBufferSize( 2048 );
acceptor.getSessionConfig().setIdleTime( IdleStatus.BOTH_IDLE, 10 );
props.put("TCP_SERVER", acceptor);
def thread = Thread.start {
	acceptor.bind( new InetSocketAddress(Integer.parseInt(vars.get("port"))));
};

SampleResult.setResponseMessageOK();
SampleResult.setResponseData("Starting TCP Server", "UTF-8");"###,
    ),
    (
        "apache+jmeter/bin/testfiles/TCP_TESTS.jmx JSR223PP_NormalizeResponseMessage",
        Lang::Groovy,
        0,
        2,
        r###"String oldResponseMessage = prev.getResponseMessage();
// In practice the exception might have lot of flavours:
//  "java.net.ConnectException: Connection refused"
//  "java.net.ConnectException: Connection refused (Connection refused)"
//  "java.net.ConnectException: Connection refused: refused"
// So we normalize it

if (oldResponseMessage != null && oldResponseMessage.contains("java.net.ConnectException: Connection refused")) {
    prev.setResponseMessage("java.net.ConnectException: Connection refused");
}
"###,
    ),
    (
        "apache+jmeter/bin/testfiles/TestKeepAlive.jmx JSPP_computeThinkTimes",
        Lang::Groovy,
        0,
        8,
        r###"int validationAfterInactivity = vars["validationAfterInactivity"].toInteger();
int ttl = vars["ttl"].toInteger();
int firstPause = validationAfterInactivity - 300;
int secondPause = validationAfterInactivity + 500;
int thirdPause = ttl-(firstPause+secondPause);

vars.put("firstPause",firstPause.toString());
vars.put("secondPause",secondPause.toString());
vars.put("thirdPause",thirdPause.toString());"###,
    ),
    (
        "apache+jmeter/bin/testfiles/TestSchedulerWithTimer.jmx JSRCheckDuration",
        Lang::Groovy,
        0,
        4,
        r###"long start = Long.parseLong(props.get("TEST_START"));
long duration = System.currentTimeMillis() - start;
long maxDurationPlusMargin = vars["MaxDuration"].toInteger()*1000+2000;
if(duration> maxDurationPlusMargin) {
	SampleResult.setSuccessful(false);
	SampleResult.setResponseData("Duration "+duration+" exceeded expected duration of "+maxDurationPlusMargin);
	log.warn("Duration "+duration+" exceeded expected duration of "+maxDurationPlusMargin);
} else {
	SampleResult.setSuccessful(true);
	SampleResult.setResponseData("Duration is in expected range:"+maxDurationPlusMargin);
}
"###,
    ),
    (
        "undera+jmeter-plugins/examples/LoadTestBPP.jmx Get Cash Account Node",
        Lang::BeanShell,
        0,
        8,
        r###"vars.put("TreeCashAccountNode", "FAILED");

String regexp=".*Ident=\\\"([0-9]+)\\\".+KGS.+Closed&gt;0.+";
String str=prev.getResponseDataAsString();
String[] arr=str.split("&lt;Node ");
int[] matches=new int[arr.length];
int count=0;
for (int n=0; n<arr.length; n++)
{

	// actions
	if (arr[n].matches(regexp))
	{
		matches[count++]=n;
	}
	else
	{
		//log.info(arr[n]);	
	}
}

if (count>0)
{
	Random ran = new java.util.Random();
	int index=matches[ran.nextInt(count)];

	java.util.regex.Pattern p = java.util.regex.Pattern.compile(regexp);
	java.util.regex.Matcher m = p.matcher(arr[index]);
	if (m.find())
	{
		vars.put("TreeCashAccountNode", m.group(1));
		//log.info(m.group(1));
	}

	//log.info(Integer.toString(count));
	//log.info(Integer.toString(index));
}
else
{
	//log.info("No applicable cash account in: "+str);
}

"###,
    ),
    (
        "undera+jmeter-plugins/examples/LoadTestBPP.jmx Get row to select",
        Lang::BeanShell,
        0,
        7,
        r###"vars.put("RowToSelect", "FAILED");

String str=prev.getResponseDataAsString();
String[] arr=str.split("\n|\r");
int[] matches=new int[arr.length];
count=0;
for (int n=0; n<arr.length; n++)
{
	if (arr[n].matches(".*\t(CU|CA|CC)\t[0-9]*\tKGS\t.*"))
	{
		matches[count++]=n;
	}
	else
	{
		// log.info("Not matched: "+arr[n]);
	}
}

if (count>0)
{
	ran = new java.util.Random();
	int index=ran.nextInt(count);
	
	vars.put("RowToSelect", Integer.toString(index));
	//log.info("Count: "+Integer.toString(count));
	//log.info("Row: "+Integer.toString(index));
}
else
{
	//log.info("No CU KGS in: "+str);
}"###,
    ),
    (
        "sunbird-perf-tests/sunbird-platform/content-search/search-request.jmx BeanShell PostProcessor",
        Lang::BeanShell,
        1,
        5,
        r###"import org.apache.jmeter.services.FileServer;



cache = vars.get("proxycache");
rc = vars.get("rescode");
FileWriter fstream = new FileWriter("/mount/data/benchmark/sunbird-perf-tests/sunbird-platform/search-data/response3.csv",true);
fstream.write(cache+","+rc+"\n");
// Close File(s)
fstream.close();"###,
    ),
];

#[test]
fn real_scripts_parse() {
    let mut bad = Vec::new();
    for (name, lang, imports, stmts, text) in REAL {
        match parse(text, *lang) {
            Err(e) if *imports == usize::MAX => {
                assert_eq!((e.pos.line, e.message.as_str()), (*stmts as u32, "class declarations are not supported"))
            }
            Ok(p) => {
                if (p.imports.len(), p.body.len()) != (*imports, *stmts) {
                    bad.push(format!("{name}: {} imports, {} statements", p.imports.len(), p.body.len()));
                }
                assert!(!p.body.iter().any(|s| matches!(s.kind, StmtKind::Empty)), "{name}");
            }
            Err(e) => bad.push(format!("{name}: {e}")),
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
