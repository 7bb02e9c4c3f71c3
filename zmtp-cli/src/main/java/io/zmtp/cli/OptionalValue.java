package io.zmtp.cli;

import picocli.CommandLine.IParameterPreprocessor;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

import java.util.Map;
import java.util.Stack;

/**
 * The parsing rule of an option whose value may be left out ({@code --stats[=MS]}): it takes a
 * value given with {@code =}, or a following argument that does not begin with {@code -}; before
 * one that does, it takes its fallback value and leaves that argument to be parsed as the option
 * it is. Every option of {@code zmtp} with an optional value names this class as its
 * {@code preprocessor}: the command line lets an option that needs a value take an argument
 * beginning with {@code -} ({@link ZmtpCli#commandLine()}), and without this rule an optional one
 * would take the next option as its value.
 */
public final class OptionalValue implements IParameterPreprocessor {

    @Override
    public boolean preprocess(Stack<String> args, CommandSpec command, ArgSpec option, Map<String, Object> info) {
        boolean attached = "=".equals(info.get("separator"));
        if (!attached && !args.isEmpty() && args.peek().startsWith("-")) {
            args.push(((OptionSpec) option).fallbackValue());
        }
        return false; // picocli goes on to take the value on top of the stack
    }
}
