import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleReader;
import java.lang.module.ResolvedModule;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Prints "owner TAB method TAB returns" for every public method of every public class the
 * JDK's java.* modules export, where all public overloads of that name (inherited ones
 * included, bridges left out) return one class and that class is one of the types named in
 * the file given as the first argument. Nested classes are written with dots.
 *
 * <p>With a second argument, also writes there "package TAB Name Name ..." for every exported
 * package: its public top-level types, so that a simple name a wildcard import or java.lang
 * brings in can be resolved. With a third argument, writes there the same for the public
 * top-level classes that are final (no other class can be of a subtype of them).
 */
public class JdkReturns {
    public static void main(String[] args) throws IOException {
        Set<String> wanted = new HashSet<>(Files.readAllLines(Path.of(args[0])));
        Map<String, String> rows = new TreeMap<>();
        Map<String, Set<String>> packages = new TreeMap<>();
        Map<String, Set<String>> finals = new TreeMap<>();
        for (ResolvedModule module : ModuleLayer.boot().configuration().modules()) {
            ModuleDescriptor descriptor = module.reference().descriptor();
            if (!descriptor.name().startsWith("java.")) {
                continue;
            }
            Set<String> exported = new HashSet<>();
            for (ModuleDescriptor.Exports e : descriptor.exports()) {
                if (!e.isQualified()) {
                    exported.add(e.source());
                }
            }
            try (ModuleReader reader = module.reference().open()) {
                for (String entry : (Iterable<String>) reader.list()::iterator) {
                    if (!entry.endsWith(".class") || entry.contains("module-info")) {
                        continue;
                    }
                    String binary = entry.substring(0, entry.length() - 6).replace('/', '.');
                    int dot = binary.lastIndexOf('.');
                    if (dot < 0 || !exported.contains(binary.substring(0, dot))) {
                        continue;
                    }
                    Class<?> owner;
                    try {
                        owner = Class.forName(binary, false, ClassLoader.getSystemClassLoader());
                    } catch (Throwable t) {
                        continue;
                    }
                    if (!Modifier.isPublic(owner.getModifiers()) || owner.isAnonymousClass()
                            || owner.getCanonicalName() == null) {
                        continue;
                    }
                    if (owner.getEnclosingClass() == null) {
                        packages.computeIfAbsent(owner.getPackageName(), k -> new TreeSet<>())
                                .add(owner.getSimpleName());
                        if (Modifier.isFinal(owner.getModifiers())) {
                            finals.computeIfAbsent(owner.getPackageName(), k -> new TreeSet<>())
                                    .add(owner.getSimpleName());
                        }
                    }
                    Map<String, Set<String>> returns = new TreeMap<>();
                    for (Method m : owner.getMethods()) {
                        if (m.isBridge() || m.isSynthetic()) {
                            continue;
                        }
                        returns.computeIfAbsent(m.getName(), k -> new TreeSet<>())
                                .add(m.getReturnType().getName().replace('$', '.'));
                    }
                    for (Map.Entry<String, Set<String>> r : returns.entrySet()) {
                        List<String> types = List.copyOf(r.getValue());
                        if (types.size() == 1 && wanted.contains(types.get(0))) {
                            rows.put(owner.getCanonicalName() + "\t" + r.getKey(), types.get(0));
                        }
                    }
                }
            }
        }
        StringBuilder out = new StringBuilder();
        rows.forEach((k, v) -> out.append(k).append('\t').append(v).append('\n'));
        System.out.print(out);
        if (args.length > 1) {
            writeTable(packages, args[1]);
        }
        if (args.length > 2) {
            writeTable(finals, args[2]);
        }
    }

    private static void writeTable(Map<String, Set<String>> packages, String file) throws IOException {
        StringBuilder types = new StringBuilder();
        packages.forEach((p, names) ->
                types.append(p).append('\t').append(String.join(" ", names)).append('\n'));
        Files.writeString(Path.of(file), types);
    }
}
