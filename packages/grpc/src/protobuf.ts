/**
 * protobufjs, imported once. It is a CommonJS package: under NodeNext the
 * default import is its `module.exports`, which holds the classes.
 */
import protobuf from "protobufjs";

export type Root = protobuf.Root;
export type Type = protobuf.Type;
export type Enum = protobuf.Enum;
export type Field = protobuf.Field;
export type Service = protobuf.Service;
export type Method = protobuf.Method;
export type ReflectionObject = protobuf.ReflectionObject;
export type Namespace = protobuf.Namespace;

export { protobuf };
