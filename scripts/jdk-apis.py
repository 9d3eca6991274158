#!/usr/bin/env python3
"""Writes docs/JDK-APIS.md: the JDK's own list of removed and deprecated APIs per release
9-21 (from jdeprscan) against what the recipe catalog does with each.

    scripts/jdk-apis.py [--jdk /usr/lib/jvm/temurin-25-jdk-amd64] [--out docs/JDK-APIS.md]

For each release N in 8..21 it runs `jdeprscan --list --release N` and
`jdeprscan --list --for-removal --release N` (a JDK whose jdeprscan knows release 21; JDK 17's
gives the same lists for 9-17). Per release 9-21:
  removed       deprecated in N-1, absent from N's list (the few APIs that were only
                un-deprecated are listed in UNDEPRECATED)
  for removal   in N's for-removal list, not in N-1's
  deprecated    in N's deprecated list, not in N-1's, not for removal
Each API is then classified by CLASSES below (first match): fixed, detected, ignored.
"""

import argparse
import os
import re
import subprocess
from collections import OrderedDict

# (regex over the jdeprscan signature, status, catalog rule or reason). Status: F fixed
# (a rewrite), D detected (a finding for the next tier naming the successor), I ignored.
R = "removed-jdk-apis"
D = "deprecated-jdk-renames"
J20 = "jdk-20-replacements"
J18 = "jdk-18-21-apis"
CLASSES = [
    # java.lang
    (r"java\.lang\.(Boolean|Byte|Character|Double|Integer|Long|Short)\(", "F", "wrapper-constructors/boxing-constructor (a box whose identity the file compares or locks on detected: boxing-constructor-identity)"),
    (r"java\.lang\.Float\(", "F", "wrapper-constructors/float-constructor* (literals, primitive and String variables; else detected)"),
    (r"java\.lang\.Class\.newInstance\(", "F", f"{D}/class-new-instance-handlers (in place in a try catching exactly the old exceptions, with the handlers extended and the constructor's exceptions unwrapped; else a private newInstanceOf helper with the old contract; in an enum detected)"),
    (r"java\.lang\.Runtime\.Version\.(major|minor|security)\(", "F", f"{D}/version-*"),
    (r"java\.lang\.Runtime\.exec\(", "F", f"{J18}/runtime-exec-literal (plain-word literals, targets 18+), {J18}/runtime-exec-tokens* (a literal, concatenation or String name: its StringTokenizer words as the array; a method's result detected: {J18}/runtime-exec-string)"),
    (r"java\.lang\.Runtime\.trace(Instructions|MethodCalls)", "F", f"{D}/runtime-trace-calls (no-op statement dropped)"),
    (r"java\.lang\.Runtime\.getLocalized", "F", f"{R}/runtime-localized-streams-identity (the argument itself, which they returned; an argument that would need parentheses detected)"),
    (r"java\.lang\.(Runtime|System)\.runFinalizersOnExit", "F", f"{R}/run-finalizers-on-exit-false, run-finalizers-on-exit-unsupported (a statement dropped: false asked for the default, true for what no JDK since 11 does; in an if without braces detected: {R}/run-finalizers-on-exit)"),
    (r"java\.lang\.(Runtime|System)\.runFinalization", "F", f"{J18}/run-finalization-statement (a statement on System or Runtime.getRuntime() dropped: it only suggested finalizers run; targets 18+; else detected: {J18}/run-finalization)"),
    (r"class java\.lang\.Compiler$", "F", f"{D}/compiler-call-statement, compiler-compile-false, compiler-command-null (statements dropped, answers the constants they always were; a computed argument detected)"),
    (r"java\.lang\.Enum\.finalize", "I", "final: no code overrides or calls it"),
    (r"java\.(io\.File(Input|Output)Stream|util\.zip\.(ZipFile|Inflater|Deflater))\.finalize\(\)$", "F", f"{D}/stream-finalize-call*, zip-codec-finalize-call* (a call of their finalize() -> close() / end(); an override detected: {R}/finalize-override, one only calling super.finalize() dropped: {D}/finalize-only-super)"),
    (r"\.finalize\(\)$", "D", f"{R}/finalize-override (an override and its super.finalize(); one that only calls super.finalize(), or only prints or logs a warning before it, is dropped: {D}/finalize-only-super, finalize-only-reports)"),
    (r"java\.lang\.System\.getSecurityManager", "F", f"security_manager_checks.rs (code half of {R}: an `if (sm != null)` guard without else, its local and a permission only it named are dropped where no project file calls setSecurityManager; other uses detected: {R}/security-manager)"),
    (r"java\.lang\.System\.setSecurityManager", "D", f"{R}/security-manager"),
    (r"java\.lang\.SecurityManager", "D", f"{R}/security-manager-subclass"),
    (r"java\.rmi\.RMISecurityManager", "D", f"{R}/rmi-security-manager"),
    (r"java\.lang\.Thread\.getId\(", "F", f"{J20}/thread-id (target 21)"),
    (r"java\.lang\.Thread(Group)?\.checkAccess", "F", f"{R}/thread-check-access-statement (a statement is dropped where no file of the project installs a Security Manager and the file names none: it only asked the Security Manager; else {R}/thread-check-access)"),
    (r"java\.lang\.Thread\.(stop\(java|destroy|countStackFrames)\(?", "F", f"{R}/thread-always-throws, thread-destroy-always-throws (a statement with nothing after it, or the body of an if or loop, becomes the UnsupportedOperationException / NoSuchMethodError it always threw; else detected: {R}/thread-stop)"),
    (r"java\.lang\.Thread\.(stop|suspend|resume)\(\)", "F", f"{J20}/thread-stop-unsupported (target 21: a statement with nothing after it, or the body of an if or loop, becomes the UnsupportedOperationException it throws since 20; else, and on 17, detected: {R}/thread-stop)"),
    (r"java\.lang\.ThreadGroup\.(stop|suspend|resume)\(", "D", f"{R}/thread-stop"),
    (r"java\.lang\.ThreadGroup\.(setDaemon|destroy)\(", "F", "thread-group-lifecycle/thread-group-no-op-statement, thread-group-destroy-guard (targets 16+: a statement, or an isDestroyed() guard holding only destroy(), dropped where the file never reads isDaemon() and no project file asks isDestroyed() elsewhere or lists subgroups - nothing on 17 reads what they change, and since 19 they do nothing; else detected: " + f"{R}/thread-stop, thread-group-daemon)"),
    (r"java\.lang\.ThreadGroup\.(isDaemon|isDestroyed)", "D", f"{R}/thread-group-daemon"),
    (r"java\.lang\.ThreadGroup\.allowThreadSuspension", "F", f"{R}/thread-group-allow-suspension-statement (a statement on a name dropped: the VM never read the flag; else detected)"),
    (r"java\.lang\.ThreadDeath", "F", f"{J20}/thread-death-handler (target 21: a handler beside another catch or a finally goes, the JDK throws none since 20, where the project makes or extends none; else detected: {J18}/thread-death, targets 18+)"),
    (r"java\.lang\.String\.(formatted|stripIndent|translateEscapes)", "I", "preview API in 13 (for-removal marks preview), final in 15: not in Java 8 code"),
    (r"java\.lang\.(invoke\.ConstantBootstraps|reflect\.Modifier)\(\)|javax\.tools\.ToolProvider\(\)|java\.net\.URLDecoder\(\)|javax\.management\.relation\.RoleStatus\(\)", "F", f"{D}/utility-class-instance-call (a static method called through a new instance is called on the class; an instance kept: {D}/utility-class-instance)"),
    (r"java\.lang\.invoke\.MethodHandles\.Lookup\.hasPrivateAccess", "I", "added in 9: not in Java 8 code"),
    (r"java\.lang\.management\.MemoryMXBean\.getObjectPendingFinalizationCount", "I", "monitoring only; keeps working"),
    (r"java\.lang\.ref\.Reference\.isEnqueued", "D", f"{R}/reference-is-enqueued"),
    (r"java\.lang\.reflect\.AccessibleObject\(\)", "I", "protected constructor, called only by the JDK"),
    (r"java\.lang\.reflect\.AccessibleObject\.isAccessible", "F", f"{R}/set-accessible-guard (the `if (!m.isAccessible()) m.setAccessible(true)` guard; else detected: {R}/accessible-object-is-accessible - a flag kept and restored stays, as canAccess(obj) throws for a static member given an object)"),
    (r"java\.lang\.reflect\.Proxy\.getProxyClass", "F", f"{R}/proxy-class (a proxyClass helper: the class of a proxy newProxyInstance makes, which it defines once per loader and interfaces)"),
    (r"java\.lang\.Package\.getPackage\(", "F", f"{R}/package-named (a private packageNamed(name) helper searching Package.getPackages(), the same loaders in the same order, asked by the same class; where the file names the helper already, detected: {R}/package-get-package)"),
    (r"java\.lang\.ClassLoader\.getPackage\(", "F", f"{R}/class-loader-get-package-chain (the packageVisibleTo helper walks getDefinedPackage up the parents, then the boot layer, as the old method did; bare calls in a subclass through the rule's twin)"),
    (r"sun\.misc\.Unsafe\.defineClass", "D", f"{R}/unsafe-define-class"),
    (r"sun\.reflect\.", "D", f"{R}/sun-reflect"),
    # java.math, java.util
    (r"java\.math\.BigDecimal", "F", "bigdecimal-rounding-mode (constant arguments, and a private or local int holding one used only as such, or a static final one every other file reads only as such; other uses detected)"),
    (r"java\.util\.Locale\(", "F", f"{J20}/locale-of (target 21)"),
    (r"java\.util\.(Observable|Observer)", "D", f"{R}/observable (guidance: PropertyChangeSupport or Flow; no drop-in)"),
    (r"java\.util\.concurrent\.Executors\.privileged", "F", f"{R}/privileged-callable (the callable itself), privileged-callable-current-loader (a helper swapping in the wrapping thread's context class loader, as the old callable did), privileged-thread-factory (a helper keeping the context class loader); in a file naming SecurityManager detected: {R}/privileged-executors"),
    (r"java\.util\.concurrent\.atomic\..*weakCompareAndSet", "F", f"{D}/weak-compare-and-set"),
    (r"java\.util\.jar\.Pack200\.(Packer|Unpacker)\.(add|remove)PropertyChangeListener", "D", f"{R}/pack200"),
    (r"java\.util\.jar\.Pack200", "D", f"{R}/pack200"),
    (r"java\.util\.logging\.LogManager\.(add|remove)PropertyChangeListener", "I", "rare; LogManager.addConfigurationListener is the successor"),
    (r"java\.util\.logging\.LogManager\.checkAccess", "F", f"{R}/thread-check-access-statement (as Thread.checkAccess)"),
    (r"java\.util\.logging\.(LogManager\.getLoggingMXBean|LoggingMXBean)", "F", f"{D}/logging-mxbean*"),
    (r"java\.util\.logging\.LogRecord\.(get|set)ThreadID", "F", f"{D}/log-record-*-thread-id"),
    (r"java\.util\.logging\.LogRecord\.setMillis", "F", f"{D}/log-record-set-millis"),
    # java.net, java.io
    (r"java\.net\.URL\(java\.lang\.String\)", "F", f"{J20}/url-from-constant (a value the file spells out: literals, concatenations, its final constants; target 21), {J20}/url-from-string (a value known only at run time: a parsedUrl helper, new URI(spec).toURL() failing with MalformedURLException; a constant URI rejects detected)"),
    (r"java\.net\.URL\(java\.lang\.String,java\.lang\.String,(int,)?java\.lang\.String\)", "F", f"{J20}/url-from-parts* (a urlFromParts helper parsing protocol://host[:port]file as a URI, failing with MalformedURLException; a constant file URI rejects detected: {J20}/url-constructor; target 21)"),
    (r"java\.net\.URL\(", "D", f"{J20}/url-constructor (target 21)"),
    (r"java\.net\.MulticastSocket\.(get|set)LoopbackMode", "F", f"{D}/multicast-*-loopback* (the IP_MULTICAST_LOOP option, negated, where IOException is handled; elsewhere setLoopbackDisabled/isLoopbackDisabled helpers that turn other IOExceptions into SocketException as the JDK does)"),
    (r"java\.net\.MulticastSocket\.(join|leave)Group\(java\.net\.InetAddress\)", "F", f"{D}/multicast-join-group, multicast-leave-group (the SocketAddress overload with a null interface, as the API note says)"),
    (r"java\.net\.MulticastSocket\.setInterface\(", "F", f"{D}/multicast-set-interface (a setInterfaceOf helper setting the address's NetworkInterface as JDK 17's socket does; in a file reading getInterface() detected: {R}/multicast-socket-inet-address)"),
    (r"java\.net\.MulticastSocket\.", "D", f"{R}/multicast-socket-inet-address"),
    (r"java\.net\.(DatagramSocket|ServerSocket|Socket)\.set\w*Factory", "I", "rare: custom socket implementations; no drop-in successor"),
    (r"java\.io\.WriteAbortedException\.detail", "F", f"{D}/write-aborted-detail* (a read -> getCause(), which returns the field; cast back to Exception where the value is used; a write stays)"),
    # java.rmi, javax.management
    (r"java\.rmi\.activation", "D", f"{R}/rmi-activation"),
    (r"\.serialVersionUID$", "I", "interface constants read only by serialization"),
    (r"javax\.management\.loading\.", "D", f"{J18}/jmx-mlet (targets 18+)"),
    (r"javax\.management\.remote\.rmi\.RMIConnectorServer\.CREDENTIAL_TYPES", "D", f"{R}/jmx-credential-types"),
    (r"javax\.management\.remote\.JMXConnector\.getMBeanServerConnection", "F", f"{J18}/jmx-connection-null-subject (a null literal: getMBeanServerConnection(), as its Javadoc says; else detected: {J18}/jmx-connection-for-subject, targets 18+)"),
    (r"javax\.management\.monitor\.(Monitor|CounterMonitor|GaugeMonitor|StringMonitor)\.getObservedObject\(\)", "F", f"{D}/monitor-observed-object (a firstObserved helper: the first of getObservedObjects(), or null)"),
    (r"javax\.management\.monitor\.(CounterMonitor|GaugeMonitor|StringMonitor)\.(getDerivedGauge|getDerivedGaugeTimeStamp|getThreshold)\(\)", "F", f"{D}/monitor-first-observed-value (the ObjectName overload for firstObserved(m), as the JDK's body: null or 0 for none)"),
    (r"javax\.management\.monitor\.Monitor\.setObservedObject", "F", f"{D}/monitor-set-observed-object (an observeOnly helper: the others removed, the object added, under the monitor's lock)"),
    (r"javax\.management\.monitor\.CounterMonitor(MBean)?\.setThreshold", "F", f"{D}/counter-monitor-set-threshold (setInitThreshold, which it called)"),
    (r"java\.rmi\.server\.UnicastRemoteObject\.exportObject\(java\.rmi\.Remote\)$", "F", f"{D}/unicast-export-object-anonymous-port (exportObject(obj, 0) where the RemoteStub it returned is not used as one; else the JDK's warning stays)"),
    (r"java\.beans\.Beans\.instantiate", "F", f"{D}/beans-instantiate-without-applet, beans-instantiate-context-without-applet (a null initializer: the two- and three-argument forms; else detected: {R}/applet)"),
    (r"javax\.management\.openmbean\.OpenType\.ALLOWED_CLASSNAMES$", "F", f"{D}/open-type-allowed-classnames (ALLOWED_CLASSNAMES_LIST.toArray(new String[0]), the array's value; not where compared by identity)"),
    (r"com\.sun\.management\.OperatingSystemMXBean\.get(Total|Free)PhysicalMemorySize", "F", f"{D}/os-mxbean-physical-memory (getTotal/FreeMemorySize, which the default methods return)"),
    (r"com\.sun\.management\.OperatingSystemMXBean\.getSystemCpuLoad", "F", f"{D}/os-mxbean-system-cpu-load (getCpuLoad, which the default method returns)"),
    (r"javax\.management\.remote\.rmi\.RMIIIOPServerImpl", "I", "RMI-IIOP connector, inert since CORBA left in 11"),
    # java.security, javax.security
    (r"java\.security\.AccessController$", "D", f"{R}/access-controller (doPrivileged(PrivilegedAction) in a file not naming SecurityManager becomes the action's run(), and a PrivilegedExceptionAction whose handler only unwraps run()'s one exception becomes run()'s returned expression: {R}/do-privileged-*)"),
    # Their signatures name AccessControlContext: matched ahead of it.
    (r"javax\.security\.auth\.Subject\.getSubject", "F", f"{J20}/subject-current (getSubject(AccessController.getContext()), target 21; else {R}/subject-access-control)"),
    (r"javax\.security\.auth\.Subject\.doAsPrivileged", "F", f"{D}/subject-do-as-privileged (a null or plain context where no Security Manager is named or installed: doAs, carried on to callAs on 18+ by {J18}/subject-do-as-*; else {R}/subject-access-control)"),
    (r"java\.security\.(AccessControlContext|AccessControlException|AccessController|DomainCombiner|Policy|PolicySpi)\b", "D", f"{R}/access-controller"),
    (r"javax\.security\.auth\.SubjectDomainCombiner", "D", f"{R}/access-controller"),
    (r"javax\.security\.auth\.Subject\.doAs", "F", f"{J18}/subject-do-as-action, subject-do-as-exception-action (targets 18+: callAs through a helper that unwraps the CompletionException into what doAs threw; an action of unknown type detected: {J18}/subject-do-as)"),
    (r"javax\.security\.auth\.Policy", "D", f"{R}/javax-security-auth-policy"),
    (r"java\.security\.(Identity|IdentityScope|Signer|Certificate)$", "D", f"{R}/security-identity"),
    (r"java\.security\.acl\.", "D", f"{R}/security-acl"),
    (r"java\.security\.Provider\(java\.lang\.String,double", "F", f"{D}/provider-version-string, provider-version-to-string (a subclass's super(name, version, info): a literal whose Double.toString is its text as that string, any other number as Double.toString of it, which the JDK documents as equivalent)"),
    (r"java\.security\.Provider\.getVersion", "F", f"{D}/provider-get-version (a providerVersion helper parsing getVersionStr() as the JDK does)"),
    (r"java\.security\.(AuthProvider|Provider)\(", "F", f"{D}/provider-version-string, provider-version-to-string (a subclass's numeric version as the String it stored)"),
    (r"java\.security\.cert\.X509(Certificate|CRL)\.get(Subject|Issuer)DN", "F", f"{R}/x509-subject-dn-string, x509-issuer-dn-string, x509-*-dn-equals (read as a string: the X500Principal's toString(), the same text; two compared: the X500Principals, the same equality; a Principal kept detected: {R}/x509-principal-dn)"),
    (r"java\.security\.cert\.X509CertSelector\.set(Subject|Issuer)\(java\.lang\.String", "F", f"{D}/x509-selector-subject-string, x509-selector-issuer-string (an x500Principal helper parsing the name as the selector did, null clearing the criterion)"),
    (r"java\.security\.cert\.X509CertSelector\.get(Subject|Issuer)AsString", "F", f"{D}/x509-selector-name-string (an x500Name helper: the criterion's RFC 2253 name, or null)"),
    (r"java\.security\.cert\.X509CRLSelector\.addIssuerName\(java\.lang\.String", "F", f"{D}/x509-crl-selector-issuer-name (addIssuer through the x500Principal helper; in a file reading getIssuerNames, which then returns encoded names, left as is)"),
    (r"java\.security\.cert\.X509C(ert|RL)Selector", "I", "rare; the X500Principal/byte[] overloads parse names differently"),
    (r"java\.security\.spec\.PSSParameterSpec|javax\.crypto\.spec\.OAEPParameterSpec\.DEFAULT", "F", f"{J20}/pss-salt-length, pss-default, oaep-default (the constructors with the values the Javadoc and source name; a DEFAULT compared by identity left alone)"),
    (r"javax\.net\.ssl\..*getPeerCertificateChain", "F", f"{R}/peer-certificate-chain-length (its `.length`), the javax-security-cert code (the cast getPeerCertificates() chain, where the file's certificates move to java.security.cert); else detected: {R}/peer-certificate-chain"),
    (r"javax\.security\.cert\.", "F", f"the javax-security-cert code of {R} (a file whose imports name them, no other file seeing them, no getVersion(): java.security.cert, X509Certificate.getInstance via CertificateFactory; else detected: {R}/javax-security-cert)"),
    (r"org\.ietf\.jgss\.GSSContext", "I", "rare: the stream forms of the GSS token methods; the byte[] forms replace them by hand"),
    # tooling, XML
    (r"javax\.lang\.model\.util\.Abstract(Element|Type)Visitor[67]", "D", f"{D}/model-visitor-abstract"),
    (r"javax\.lang\.model\.util\.\w+[67]\(", "F", f"{D}/model-visitor-6"),
    (r"javax\.tools\.ToolProvider\.getSystemToolClassLoader\(", "F", f"{D}/system-tool-class-loader* (the null it returns since 9; dereferenced: {D}/system-tool-class-loader-dereferenced)"),
    (r"javax\.tools\.", "I", "rare in application code (annotation processors, build tools)"),
    (r"javax\.xml\.stream\.\w+\.newInstance\(java\.lang\.String,java\.lang\.ClassLoader\)", "F", f"{D}/xml-stream-new-instance, xml-output-factory-new-instance (XMLOutputFactory's returned an XMLInputFactory: XMLInputFactory.newFactory)"),
    (r"org\.xml\.sax\.helpers\.XMLReaderFactory", "F", f"{R}/xml-reader-factory-ns-instance (SAXParserFactory.newNSInstance()...getXMLReader() where Exception is handled), else a private newXmlReader helper keeping SAXException; createXMLReader(String) detected: {R}/xml-reader-factory"),
    (r"org\.xml\.sax\.HandlerBase$", "F", f"the sax1-handlers code of {R} (a handler class no other file can extend, in a file not asking for namespace-aware parsing: DefaultHandler, the SAX 2 element callbacks, Attributes; else detected: {R}/sax1)"),
    (r"org\.xml\.sax\.", "D", f"{R}/sax1 (porting a parser or a handler others may extend to SAX 2 changes signatures other files see: not mechanical)"),
    (r"jdk\.nashorn\.", "D", f"{R}/nashorn-import"),
    # removed modules and desktop
    (r"org\.omg\.|javax\.rmi\.CORBA|javax\.activity", "D", f"{R}/corba"),
    (r"javax\.xml\.stream\.XMLInputFactory\.newFactory\(\)", "I", "deprecated by mistake in 9, un-deprecated in 10"),
    (r"javax\.xml\.bind\.JAXBContext\.createValidator", "I", "JAXB 1 validation: still deprecated in the jaxb-api jar the pom gets back"),
    (r"javax\.(xml\.bind|activation|annotation)\.", "F", "Java EE modules removed in 11: API dependencies added (dependencies.rs) or moved to Jakarta"),
    (r"javax\.(jws|xml\.ws|xml\.soap)\.", "I", "JAX-WS left in 11: moved only with the javax -> jakarta migration (jakarta.yml)"),
    (r"javax\.naming\.Context\.APPLET", "F", f"{D}/jndi-applet-put, jndi-applet-put-if-present (putting it in an environment, which the initial context ignores, goes: a plain value, alone or under an if testing it against null; other uses ignored, the key being inert)"),
    (r"java\.applet\.|javax\.swing\.JApplet|java\.beans\.(AppletInitializer|Beans\.instantiate)|RepaintManager\.addDirtyRegion\(java\.applet", "D", f"{R}/applet (the import of java.applet, JApplet or AppletInitializer)"),
    (r"java\.awt\.Component\.getPeer\(", "F", "awt-swing-renames/components-peer-present, components-peer-absent (tested against null: JDK 8's isDisplayable() was exactly that test; other uses fail to compile and are reported)"),
    (r"javax\.swing\.text\.JTextComponent\.(viewToModel|modelToView)\(", "F", "awt-swing-renames/text-view-to-model, text-model-to-view (viewToModel2D of the same point; modelToView2D's bounds through a viewRectangle helper keeping null)"),
    (r"java\.awt\.event\.InputEvent\.(SHIFT|CTRL|META|ALT|ALT_GRAPH)_MASK|java\.awt\.Toolkit\.getMenuShortcutKeyMask\(", "F", "awt-swing-renames/key-stroke-modifier-mask, key-stroke-menu-shortcut-mask (in a KeyStroke's modifiers, alone or or-ed, where KeyStroke maps old and extended masks to one key), input-event-*-down/up (a getModifiers() test of one key's bit -> isShiftDown() and the like; ALT and META on a KeyEvent only: they are mouse buttons' bits too; elsewhere ignored as desktop UI)"),
    (r"java\.awt\.event\.InputEvent\.getModifiers\(", "F", "awt-swing-renames/input-event-*-down/up (tested for one modifier key's bit -> isShiftDown() and the like; an int local holding it that is only so tested -> getModifiersEx() and *_DOWN_MASK: input_modifier_holders.rs; elsewhere ignored as desktop UI)"),
    (r"java\.awt\.image\.renderable\.RenderContext\.concetenateTransform", "F", f"{D}/render-context-concatenate (concatenateTransform, which calls it)"),
    (r"javax\.imageio\.spi\.ImageReaderSpi\.STANDARD_INPUT_TYPE", "F", f"{D}/image-reader-standard-input-type (the array it holds, which the constructor copies alike)"),
    (r"java\.awt\.event\.KeyEvent\(java\.awt\.Component,int,long,int,int\)", "F", f"{D}/key-event-without-char (the char (char) keyCode it passed, for a plain key code)"),
    (r"java\.awt\.|javax\.swing\.|javax\.imageio\.|javax\.print\.|javax\.sound\.|javax\.accessibility\.", "I", "desktop UI APIs: out of scope for server-side migrations"),
]

# Gone from the deprecated list without having been for removal, and still in the JDK.
UNDEPRECATED = {"javax.xml.stream.XMLInputFactory javax.xml.stream.XMLInputFactory.newFactory()"}

STATUS = {"F": "fixed", "D": "detected", "I": "ignored"}


def jdeprscan(jdk, release, for_removal, cache):
    name = f"{'rem' if for_removal else 'dep'}-{release}.txt"
    path = os.path.join(cache, name)
    if for_removal and release < 9:
        return OrderedDict()  # forRemoval came with 9; jdeprscan refuses the question for 8
    if not os.path.exists(path):
        cmd = [os.path.join(jdk, "bin", "jdeprscan"), "--list"]
        if for_removal:
            cmd.append("--for-removal")
        cmd += ["--release", str(release)]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        with open(path, "w") as f:
            f.write(out)
    apis = OrderedDict()
    for line in open(path):
        if line.startswith("@Deprecated"):
            m = re.match(r"@Deprecated(\(([^)]*)\))?\s*(.*)", line.strip())
            since = re.search(r'since="([^"]*)"', m.group(2) or "")
            apis[m.group(3)] = since.group(1) if since else ""
    return apis


def classify(api):
    for pattern, status, note in CLASSES:
        if re.search(pattern, api):
            return status, note
    return "I", "rare in application code"


def owner(api):
    """The class an API belongs to, and the member's short form."""
    if re.match(r"(class|interface|enum|@interface)\s", api):
        return api.split(" ", 1)[1], "(class)"
    head, paren, args = api.partition("(")
    words = head.split(" ")
    name = words[-1]
    if not paren:  # a field
        cls, _, field = name.rpartition(".")
        return cls, field
    short = ",".join(x.rsplit(".", 1)[-1] for x in args.rstrip(")").split(",") if x)
    if len(words) == 1:  # a constructor
        return name, f"<init>({short})"
    cls, _, method = name.rpartition(".")
    return cls, f"{method}({short})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jdk", default="/usr/lib/jvm/temurin-25-jdk-amd64")
    ap.add_argument("--cache", default="/tmp/uplift-jdeprscan")
    ap.add_argument("--out", default="docs/JDK-APIS.md")
    a = ap.parse_args()
    os.makedirs(a.cache, exist_ok=True)
    dep = {n: jdeprscan(a.jdk, n, False, a.cache) for n in range(8, 22)}
    rem = {n: jdeprscan(a.jdk, n, True, a.cache) for n in range(8, 22)}
    version = subprocess.run([os.path.join(a.jdk, "bin", "java"), "-version"], capture_output=True, text=True).stderr.splitlines()[0]

    rows = []  # (release, change, api)
    for n in range(9, 22):
        for api in dep[n - 1]:
            if api not in dep[n] and api not in UNDEPRECATED:
                rows.append((n, "removed", api))
        for api in rem[n]:
            if api not in rem[n - 1]:
                rows.append((n, "for removal", api))
        for api in dep[n]:
            if api not in dep[n - 1] and api not in rem[n]:
                rows.append((n, "deprecated", api))

    out = []
    w = out.append
    w("# JDK APIs removed or deprecated in Java 9-21, and what Uplift does with them\n")
    w("Generated by `scripts/jdk-apis.py` (do not edit by hand; change its `CLASSES` table and")
    w("re-run it). The lists are the JDK's own, from `jdeprscan` of " + version + ":\n")
    w("```")
    w("for N in 8 9 ... 21; do")
    w("  jdeprscan --list --release $N               # every API deprecated in release N")
    w("  jdeprscan --list --for-removal --release $N # those deprecated for removal")
    w("done")
    w("```\n")
    w("JDK 17's jdeprscan (`/usr/lib/jvm/java-17-openjdk-amd64`) gives identical lists for 8-16 and,")
    w("for 17, two more ordinary deprecations (`java.rmi.server.LogStream(String,OutputStream)`,")
    w("`java.util.jar.Manifest.make72Safe(StringBuffer)`, both rare).\n")
    w("Per release N: **removed** = deprecated in N-1 and gone from N's list (an API that was")
    w("only un-deprecated, `XMLInputFactory.newFactory()` in 10, is left out); **for removal** = newly")
    w("in N's for-removal list; **deprecated** = newly deprecated in N, not for removal. An API appears")
    w("once per change (deprecated in 9, for removal in 16, ...). jdeprscan lists members and classes,")
    w("not modules: the Java EE and CORBA modules removed in 11 show up through their deprecated members")
    w("only.\n")
    w("- **fixed**: a recipe rewrites it (ast-grep rules in `src/recipes/catalog/java/*.yml`, types")
    w("  resolved by `java_types.rs`, so a project class of the same name is left alone, also one")
    w("  declared in another file of the same package, which shadows `java.lang`); cases it")
    w("  cannot prove safe are reported like detected ones. A statically imported member is seen with")
    w("  its owner (`static_imports.rs`), so `decode(s)` under `import static java.net.URLDecoder.decode`")
    w("  is fixed like `URLDecoder.decode(s)`.")
    w("- **detected**: a rule without a fix reports file, line and the documented successor; the run")
    w("  lists it as a task left for the next tier (the configured LLM, else a human).")
    w("- **ignored**: no rule, with the reason.\n")
    w("Rules marked *target 21* run only when the migration targets 20 or later (their successor")
    w("does not exist in 17); *targets 18+* (`jdk-18-21-apis`) only when the target deprecates the API,")
    w("so a migration to 17 is not asked to change what 17 does not deprecate. Conformance cases:")
    w("`tests/conformance/{removed-jdk-apis,deprecated-jdk-renames,jdk-18-21-apis,jdk-20-replacements,")
    w("wrapper-constructors,bigdecimal-rounding-mode,base64-from-sun-misc,jaxb-datatype-converter,")
    w("awt-swing-renames}.yml`.\n")

    w("## Counts\n")
    desktop = lambda api: classify(api)[1].startswith("desktop UI")
    w("Each API counts once per change; *ignored (UI)* are the desktop UI APIs (AWT, Swing,")
    w("Image I/O, printing, sound), not listed below.\n")
    w("| release | removed | for removal | deprecated | fixed | detected | ignored | ignored (UI) |")
    w("|---|---|---|---|---|---|---|---|")
    totals = [0] * 7
    for n in range(9, 22):
        rs = [r for r in rows if r[0] == n]
        c = [sum(1 for r in rs if r[1] == k) for k in ("removed", "for removal", "deprecated")]
        s = [sum(1 for r in rs if classify(r[2])[0] == k and not (k == "I" and desktop(r[2]))) for k in "FDI"]
        s.append(sum(1 for r in rs if desktop(r[2])))
        totals = [t + x for t, x in zip(totals, c + s)]
        w(f"| {n} | " + " | ".join(str(x) for x in c + s) + " |")
    w("| all | " + " | ".join(f"**{x}**" for x in totals) + " |")
    w("")

    for n in range(9, 22):
        rs = [r for r in rows if r[0] == n and not desktop(r[2])]
        w(f"## Java {n}\n")
        if not rs:
            w("Nothing outside the desktop UI APIs.\n")
            continue
        # One row per change, package, status and rule: the members as Class.member.
        groups = OrderedDict()
        for _, change, api in sorted(rs, key=lambda r: (("removed", "for removal", "deprecated").index(r[1]), owner(r[2]))):
            cls, member = owner(api)
            parts = cls.split(".")
            i = next((k for k, p in enumerate(parts) if p[:1].isupper()), len(parts))
            package, simple = ".".join(parts[:i]), ".".join(parts[i:])
            status, note = classify(api)
            label = simple if member == "(class)" else f"{simple}.{member}".replace(".<init>", "")
            groups.setdefault((change, package, status, note), []).append(label)
        w("| change | package | classes and members | status | rule or reason |")
        w("|---|---|---|---|---|")
        for (change, package, status, note), members in groups.items():
            ms = ", ".join(dict.fromkeys(members))
            w(f"| {change} | `{package}` | {ms} | {STATUS[status]} | {note} |")
        w("")

    w("## Deprecated before 9, still deprecated in 21, handled by the catalog\n")
    w("Java 8 code commonly uses these older deprecations; they are not in the per-release")
    w("tables above because their deprecation predates Java 9.\n")
    w("| class | rewritten to | rule |")
    w("|---|---|---|")
    for cls, what, rule in OLDER:
        w(f"| `{cls}` | {what} | {rule} |")
    w("\n`Date(String)` and `Date.parse` (1.1: their own lenient date grammar) are")
    w("not mechanical and are left to the JDK's report; `sun.misc.BASE64Encoder/Decoder` (not a public API,")
    w("so not in jdeprscan's lists, gone in 9) become `java.util.Base64` where created and used in one")
    w("expression or held in a variable or field whose every use moves with it (`base64-from-sun-misc`;")
    w("any other use is reported), `com.sun.net.ssl` (gone in 9) classes with javax.net.ssl's API move")
    w("there, while `HostnameVerifier`/`HttpsURLConnection` (their defaults configured only the old")
    w("protocol handler's connections) are reported with that reason, and")
    w("`javax.xml.bind.DatatypeConverter`'s Base64 and hex helpers (JAXB left with Java 11) become")
    w("`java.util.Base64` and `HexFormat` for targets 17+ (`jaxb-datatype-converter`). Imports of")
    w("JDK-internal packages (`sun.security.*`, `com.sun.org.apache.*`, `jdk.internal.*`, ...: not")
    w("public, so not in these lists, and strongly encapsulated since 16/17) are reported with the")
    w("public replacement (`removed-jdk-apis/jdk-internal-import`), and deep reflection into a JDK")
    w("class (`getDeclaredField`/`Method`/`Constructor` on a `java.*`, `javax.*`, `jdk.*` or internal")
    w("class in a method that calls `setAccessible(true)`; `sun.misc` and `sun.reflect` stay open) is")
    w("reported with `--add-opens` and the public alternatives (`removed-jdk-apis/deep-reflection-into-jdk`).\n")
    with open(a.out, "w") as f:
        f.write("\n".join(out))


OLDER = [
    ("java.lang.Character", "isJavaLetter/isJavaLetterOrDigit -> isJavaIdentifierStart/Part; isSpace kept and detected (its successor isWhitespace takes more characters; not for removal)", f"{D}/is-java-letter*, is-space"),
    ("java.util.logging.Logger", "Logger.global -> getGlobal(); logrb(.., String bundle, ..) -> ResourceBundle overload", f"{D}/logger-global, logrb-bundle-name"),
    ("java.net.URLEncoder / URLDecoder", "encode/decode(String) -> (String, UTF_8)", f"{D}/url-*-default-charset"),
    ("java.net.HttpURLConnection", "HTTP_SERVER_ERROR -> HTTP_INTERNAL_ERROR", f"{D}/http-server-error"),
    ("java.util.jar.Attributes.Name", "EXTENSION_INSTALLATION, IMPLEMENTATION_VENDOR_ID, IMPLEMENTATION_URL -> new Attributes.Name of the same text (equal and hashed alike; compared by identity left alone)", f"{D}/jar-attribute-name-*"),
    ("java.awt.image.renderable.RenderContext", "concetenateTransform -> concatenateTransform (which calls it)", f"{D}/render-context-concatenate"),
    ("java.awt.event.KeyEvent", "KeyEvent(source, id, when, modifiers, keyCode) -> (.., keyCode, (char) keyCode), the char it passed", f"{D}/key-event-without-char"),
    ("javax.management.monitor", "Monitor.getObservedObject() -> firstObserved(m), the first observed object or null; the monitors' getDerivedGauge(), getDerivedGaugeTimeStamp() and getThreshold() -> the ObjectName overload for firstObserved(m); setObservedObject(o) -> observeOnly(m, o); CounterMonitor.setThreshold -> setInitThreshold", f"{D}/monitor-observed-object, monitor-first-observed-value, monitor-set-observed-object, counter-monitor-set-threshold"),
    ("javax.management.openmbean.OpenType", "ALLOWED_CLASSNAMES -> ALLOWED_CLASSNAMES_LIST.toArray(new String[0])", f"{D}/open-type-allowed-classnames"),
    ("javax.imageio.spi.ImageReaderSpi", "STANDARD_INPUT_TYPE -> new Class<?>[] { ImageInputStream.class }", f"{D}/image-reader-standard-input-type"),
    ("com.sun.management.OperatingSystemMXBean (jdk.management, 14)", "getTotal/FreePhysicalMemorySize -> getTotal/FreeMemorySize; getSystemCpuLoad -> getCpuLoad", f"{D}/os-mxbean-physical-memory, os-mxbean-system-cpu-load"),
    ("java.net.MulticastSocket", "getTTL()/setTTL(b) -> (byte) getTimeToLive()/setTimeToLive(Byte.toUnsignedInt(b))", f"{D}/multicast-get-ttl, multicast-set-ttl"),
    ("java.io.File", "toURL() -> toURI().toURL()", f"{D}/file-to-url"),
    ("java.lang.ClassLoader", "defineClass(byte[],int,int) -> defineClass(null, ..)", f"{D}/define-class-without-name"),
    ("java.sql.DriverManager", "setLogStream -> setLogWriter (System.out/err or a new stream wrapped as is, a name tested for null, anything else through a logWriterFor helper keeping null as off; getLogStream() tested against null -> getLogWriter(), the writer those calls now set)", f"{D}/driver-manager-log-stream*"),
    ("java.lang.String", "String(byte[], 0[, off, len]) -> (.., StandardCharsets.ISO_8859_1)", f"{D}/string-hibyte-zero*"),
    ("java.util.Date", "Date(y, m, d[, h, min[, s]]) -> new GregorianCalendar(y + 1900, m, d, ..).getTime(); toLocaleString() -> DateFormat.getDateTimeInstance().format(d)", f"{D}/date-year-month-day*, date-to-locale-string"),
    ("java.util.Date", "getYear/getMonth/getDate/getDay/getHours/getMinutes/getSeconds -> the field of Instant.ofEpochMilli(d.getTime()).atZone(ZoneId.systemDefault()) (- 1900, - 1, % 7 as the getter did; a method reference Date::getYear becomes a typed lambda of the same); getTimezoneOffset() -> -TimeZone.getDefault().getOffset(d.getTime()) / 60000; toGMTString() -> a DateTimeFormatter of its pattern in Locale.US at UTC", f"{D}/date-get-*, date-to-gmt-string"),
    ("java.util.Date", "setYear/setMonth/setDate/setHours/setMinutes/setSeconds -> setDateField(d, Calendar.FIELD, v), a private helper setting the field through a GregorianCalendar in the default zone (lenient, as Date was); Date.UTC(..) -> utcMillis(..), a cleared GregorianCalendar at UTC", f"{D}/date-set-*, date-utc"),
    ("java.sql.Date / Time / Timestamp", "the field constructors -> the millisecond constructor of a GregorianCalendar's instant (Timestamp through a timestampOf helper that sets the nanos)", f"{D}/sql-date-year-month-day, sql-time-hours-minutes-seconds, sql-timestamp-fields"),
    ("java.net.MulticastSocket", "send(packet, ttl) -> sendWithTimeToLive(socket, packet, ttl), a helper that sets the time-to-live for the send and restores it", f"{D}/multicast-send-with-ttl"),
    ("java.io.StringBufferInputStream, String.getBytes(int, int, byte[], int), ByteArrayOutputStream.toString(int), StreamTokenizer(InputStream)", "the low byte of each char is ISO-8859-1: ByteArrayInputStream over getBytes(ISO_8859_1) (the type too), System.arraycopy of the substring's ISO-8859-1 bytes, toString(ISO_8859_1) for hibyte 0, a StreamTokenizer over an ISO-8859-1 InputStreamReader", f"{D}/string-buffer-input-stream*, string-get-low-bytes*, byte-array-output-hibyte-zero, stream-tokenizer-*"),
    ("java.awt / javax.swing components (1.1-1.7)", "resize/move/reshape/size/location/bounds/preferredSize/minimumSize/layout/inside/locate/show/hide/enable/disable/countComponents/insets, java.awt.List/Choice/Menu/TextArea/TextField/Scrollbar/CheckboxGroup/Polygon/Rectangle's old names, AbstractButton.getLabel/setLabel, JPasswordField.getText(), JList.getSelectedValues(), getMenuBar/setMenuBar -> the successors their Javadoc names (AWT's call the old methods, so overrides still run)", "awt-swing-renames/*"),
    ("java.awt / javax.swing layouts, cursors, viewports, menus", "Frame.*_CURSOR -> Cursor's, Frame.setCursor(int) -> setCursor(Cursor.getPredefinedCursor(..)), BorderLayout.addLayoutComponent(String, Component) -> (Component, Object) (CardLayout's with a literal name), JViewport.setBackingStoreEnabled/isBackingStoreEnabled -> the scroll mode, JTable.createScrollPaneForTable -> new JScrollPane, JPopupMenu/JMenuBar.getComponentAtIndex -> getComponent (JMenuBar's through a helper answering null out of range)", "awt-swing-renames/frame-*cursor*, border-layout-add-*, card-layout-add-literal, viewport-*, table-scroll-pane, *-component-at-index"),
    ("java.rmi.server.RMIClassLoader", "loadClass(name) -> loadClass((String) null, name), what it called", f"{D}/rmi-class-loader-load-class"),
    ("java.net.URLConnection", "setDefaultRequestProperty statements dropped, getDefaultRequestProperty -> null (no-ops since 1.3)", f"{D}/default-request-property-set, default-request-property-get"),
    ("java.util.Properties", "save(out, c) -> try { store(out, c); } catch (IOException ignored) { } (what save did)", f"{D}/properties-save"),
    ("javax.annotation.Generated (removed in 11)", "-> javax.annotation.processing.Generated (JDK 9+, same elements and retention)", f"{R}/javax-annotation-generated*"),
    ("sun.misc.BASE64Encoder (removed in 9)", "encodeBuffer(bytes) -> the MIME encoding plus the trailing line separator (nothing for no input)", "base64-from-sun-misc/encoder-buffer"),
    ("java.lang.Thread", "stop/suspend/resume/destroy/countStackFrames statements -> the exception they throw (see the tables)", f"{R}/thread-always-throws, {J20}/thread-stop-unsupported"),
]

if __name__ == "__main__":
    main()
