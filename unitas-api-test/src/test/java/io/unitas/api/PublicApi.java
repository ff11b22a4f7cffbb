package io.unitas.api;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaGenericArrayType;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaParameterizedType;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.domain.JavaTypeVariable;
import com.tngtech.archunit.core.domain.JavaWildcardType;

/**
 * A module's promised surface as sorted text, one line a type and one indented line a member: every public or
 * protected type outside {@code ..internal..} packages that a user can reach (nested ones through reachable
 * enclosing types), with its supertypes, and its public and protected constructors, methods and fields, generics
 * included. Read from class files, so nothing is loaded; compiler-made members (bridges, synthetics) are left out.
 */
final class PublicApi {

    private PublicApi() {}

    static List<String> of(JavaClasses classes) {
        List<String> lines = new ArrayList<>();
        classes.stream().filter(PublicApi::reachable).sorted(Comparator.comparing(JavaClass::getName))
                .forEach(type -> {
                    lines.add(header(type));
                    members(type).forEach(member -> lines.add("  " + member));
                });
        return lines;
    }

    static boolean reachable(JavaClass type) {
        if (type.getPackageName().contains(".internal") || type.getSimpleName().equals("package-info")
            || type.isAnonymousClass() || type.isLocalClass() || !visible(type.getModifiers())) {
            return false;
        }
        Optional<JavaClass> enclosing = type.getEnclosingClass();
        return enclosing.isEmpty() || reachable(enclosing.get());
    }

    private static boolean visible(Set<JavaModifier> modifiers) {
        return (modifiers.contains(JavaModifier.PUBLIC) || modifiers.contains(JavaModifier.PROTECTED))
               && !modifiers.contains(JavaModifier.SYNTHETIC) && !modifiers.contains(JavaModifier.BRIDGE);
    }

    private static String header(JavaClass type) {
        String kind = type.isAnnotation() ? "@interface" : type.isInterface() ? "interface"
                : type.isEnum() ? "enum" : type.isRecord() ? "record" : "class";
        Set<JavaModifier> shown = new LinkedHashSet<>(type.getModifiers());
        shown.retainAll(Set.of(JavaModifier.PUBLIC, JavaModifier.PROTECTED, JavaModifier.STATIC,
                               JavaModifier.ABSTRACT, JavaModifier.FINAL));
        if (type.isInterface()) {
            shown.remove(JavaModifier.ABSTRACT);
        }
        if (type.getEnclosingClass().isEmpty()) {
            shown.remove(JavaModifier.STATIC);   // a top-level record's class file says so; the language does not
        }
        StringBuilder line = new StringBuilder(modifiers(shown)).append(kind).append(' ').append(type.getName())
                .append(typeParameters(type.getTypeParameters()));
        type.getSuperclass().map(PublicApi::render)
                .filter(s -> !s.equals("java.lang.Object") && !s.startsWith("java.lang.Enum<")
                             && !s.equals("java.lang.Record"))
                .ifPresent(s -> line.append(" extends ").append(s));
        List<String> interfaces = type.getInterfaces().stream().map(PublicApi::render)
                .filter(s -> !s.equals("java.lang.annotation.Annotation")).sorted().toList();
        if (!interfaces.isEmpty()) {
            line.append(type.isInterface() ? " extends " : " implements ").append(String.join(", ", interfaces));
        }
        return line.toString();
    }

    private static List<String> members(JavaClass type) {
        List<String> members = new ArrayList<>();
        for (JavaMember member : type.getMembers()) {
            if (!visible(member.getModifiers())) {
                continue;
            }
            Set<JavaModifier> shown = new LinkedHashSet<>(member.getModifiers());
            shown.retainAll(Set.of(JavaModifier.PUBLIC, JavaModifier.PROTECTED, JavaModifier.STATIC,
                                   JavaModifier.ABSTRACT, JavaModifier.FINAL));
            boolean isDefault = type.isInterface() && member instanceof JavaCodeUnit
                                && !shown.contains(JavaModifier.ABSTRACT) && !shown.contains(JavaModifier.STATIC);
            if (type.isInterface()) {
                shown.remove(JavaModifier.ABSTRACT);   // implied in an interface; a default method says so
            }
            String prefix = modifiers(shown) + (isDefault ? "default " : "");
            if (member instanceof JavaCodeUnit code) {
                String params = code.getParameterTypes().stream().map(PublicApi::render)
                        .collect(Collectors.joining(", ", "(", ")"));
                String generics = typeParameters(code.getTypeParameters());
                generics = generics.isEmpty() ? "" : generics + " ";
                members.add(code.isConstructor()
                        ? prefix + generics + "<init>" + params
                        : prefix + generics + render(code.getReturnType()) + " " + code.getName() + params);
            } else if (member instanceof JavaField field) {
                members.add(prefix + render(field.getType()) + " " + field.getName());
            }
        }
        members.sort(Comparator.naturalOrder());
        return members;
    }

    private static String modifiers(Set<JavaModifier> modifiers) {
        StringBuilder out = new StringBuilder();
        for (JavaModifier m : List.of(JavaModifier.PUBLIC, JavaModifier.PROTECTED, JavaModifier.STATIC,
                                      JavaModifier.ABSTRACT, JavaModifier.FINAL)) {
            if (modifiers.contains(m)) {
                out.append(m.name().toLowerCase(Locale.ROOT)).append(' ');
            }
        }
        return out.toString();
    }

    private static String typeParameters(List<? extends JavaTypeVariable<?>> variables) {
        if (variables.isEmpty()) {
            return "";
        }
        return variables.stream().map(v -> {
            List<String> bounds = v.getUpperBounds().stream().map(PublicApi::render)
                    .filter(b -> !b.equals("java.lang.Object")).toList();
            return bounds.isEmpty() ? v.getName() : v.getName() + " extends " + String.join(" & ", bounds);
        }).collect(Collectors.joining(", ", "<", ">"));
    }

    static String render(JavaType type) {
        if (type instanceof JavaParameterizedType parameterized) {
            return render(parameterized.toErasure()) + parameterized.getActualTypeArguments().stream()
                    .map(PublicApi::render).collect(Collectors.joining(", ", "<", ">"));
        }
        if (type instanceof JavaTypeVariable<?> variable) {
            return variable.getName();
        }
        if (type instanceof JavaWildcardType wildcard) {
            List<String> upper = wildcard.getUpperBounds().stream().map(PublicApi::render)
                    .filter(b -> !b.equals("java.lang.Object")).toList();
            List<String> lower = wildcard.getLowerBounds().stream().map(PublicApi::render).toList();
            return "?" + (upper.isEmpty() ? "" : " extends " + String.join(" & ", upper))
                   + (lower.isEmpty() ? "" : " super " + String.join(" & ", lower));
        }
        if (type instanceof JavaGenericArrayType array) {
            return render(array.getComponentType()) + "[]";
        }
        JavaClass raw = type.toErasure();
        return raw.isArray() ? render(raw.getComponentType()) + "[]" : raw.getName();
    }
}
