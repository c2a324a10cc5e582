#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `org.freedesktop.DBus.Introspectable` answers: the interfaces of each object and the children
/// of each node, in the D-Bus introspection format.
extension SecretServiceDaemon {
    func introspect(_ path: String) throws(DBusError) -> String {
        var interfaces = Self.standardInterfaces
        var children: [String] = []
        if let object = SecretObjectPath(path) {
            switch object {
            case .service:
                interfaces += Self.serviceXML
                children = ["collection", "aliases", "session", "prompt"]
            case .collection, .alias:
                interfaces += Self.collectionXML
                let name = try collectionName(of: object)
                children = try itemPaths(in: name).map { String($0.split(separator: "/").last ?? "") }
            case .item, .aliasItem:
                _ = try backend.item(try itemAddress(of: object))
                interfaces += Self.itemXML
            case .session:
                interfaces += Self.sessionXML
            case .prompt:
                interfaces += Self.promptXML
            }
        } else {
            switch path {
            case "/": children = ["org"]
            case "/org": children = ["freedesktop"]
            case "/org/freedesktop": children = ["portal", "secrets"]
            case "/org/freedesktop/portal": children = ["desktop"]
            case Self.portalPath: children = []
            case SecretObjectPath.servicePath + "/collection": children = try backend.collectionNames()
            case SecretObjectPath.servicePath + "/aliases": children = ["default", SessionCollection.name]
            case SecretObjectPath.servicePath + "/session", SecretObjectPath.servicePath + "/prompt": children = []
            default: throw .unknownMethod("no object at \(path)")
            }
            interfaces = path == Self.portalPath ? Self.standardInterfaces + Self.portalXML : ""
        }
        let nodes = children.map { "  <node name=\"\($0)\"/>\n" }.joined()
        return """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <node>
        \(interfaces)\(nodes)</node>

        """
    }

    private static let standardInterfaces = """
      <interface name="org.freedesktop.DBus.Introspectable">
        <method name="Introspect"><arg name="xml" type="s" direction="out"/></method>
      </interface>
      <interface name="org.freedesktop.DBus.Peer">
        <method name="Ping"/>
        <method name="GetMachineId"><arg name="id" type="s" direction="out"/></method>
      </interface>
      <interface name="org.freedesktop.DBus.Properties">
        <method name="Get"><arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="v" direction="out"/></method>
        <method name="GetAll"><arg type="s" direction="in"/><arg type="a{sv}" direction="out"/></method>
        <method name="Set"><arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="v" direction="in"/></method>
      </interface>

    """

    private static let serviceXML = """
      <interface name="org.freedesktop.Secret.Service">
        <method name="OpenSession"><arg name="algorithm" type="s" direction="in"/><arg name="input" type="v" direction="in"/><arg name="output" type="v" direction="out"/><arg name="result" type="o" direction="out"/></method>
        <method name="CreateCollection"><arg name="properties" type="a{sv}" direction="in"/><arg name="alias" type="s" direction="in"/><arg name="collection" type="o" direction="out"/><arg name="prompt" type="o" direction="out"/></method>
        <method name="SearchItems"><arg name="attributes" type="a{ss}" direction="in"/><arg name="unlocked" type="ao" direction="out"/><arg name="locked" type="ao" direction="out"/></method>
        <method name="Unlock"><arg name="objects" type="ao" direction="in"/><arg name="unlocked" type="ao" direction="out"/><arg name="prompt" type="o" direction="out"/></method>
        <method name="Lock"><arg name="objects" type="ao" direction="in"/><arg name="locked" type="ao" direction="out"/><arg name="Prompt" type="o" direction="out"/></method>
        <method name="GetSecrets"><arg name="items" type="ao" direction="in"/><arg name="session" type="o" direction="in"/><arg name="secrets" type="a{o(oayays)}" direction="out"/></method>
        <method name="ReadAlias"><arg name="name" type="s" direction="in"/><arg name="collection" type="o" direction="out"/></method>
        <method name="SetAlias"><arg name="name" type="s" direction="in"/><arg name="collection" type="o" direction="in"/></method>
        <property name="Collections" type="ao" access="read"/>
        <signal name="CollectionCreated"><arg name="collection" type="o"/></signal>
        <signal name="CollectionDeleted"><arg name="collection" type="o"/></signal>
        <signal name="CollectionChanged"><arg name="collection" type="o"/></signal>
      </interface>

    """

    private static let collectionXML = """
      <interface name="org.freedesktop.Secret.Collection">
        <method name="Delete"><arg name="prompt" type="o" direction="out"/></method>
        <method name="SearchItems"><arg name="attributes" type="a{ss}" direction="in"/><arg name="results" type="ao" direction="out"/></method>
        <method name="CreateItem"><arg name="properties" type="a{sv}" direction="in"/><arg name="secret" type="(oayays)" direction="in"/><arg name="replace" type="b" direction="in"/><arg name="item" type="o" direction="out"/><arg name="prompt" type="o" direction="out"/></method>
        <property name="Items" type="ao" access="read"/>
        <property name="Label" type="s" access="readwrite"/>
        <property name="Locked" type="b" access="read"/>
        <property name="Created" type="t" access="read"/>
        <property name="Modified" type="t" access="read"/>
        <signal name="ItemCreated"><arg name="item" type="o"/></signal>
        <signal name="ItemDeleted"><arg name="item" type="o"/></signal>
        <signal name="ItemChanged"><arg name="item" type="o"/></signal>
      </interface>

    """

    private static let itemXML = """
      <interface name="org.freedesktop.Secret.Item">
        <method name="Delete"><arg name="Prompt" type="o" direction="out"/></method>
        <method name="GetSecret"><arg name="session" type="o" direction="in"/><arg name="secret" type="(oayays)" direction="out"/></method>
        <method name="SetSecret"><arg name="secret" type="(oayays)" direction="in"/></method>
        <property name="Locked" type="b" access="read"/>
        <property name="Attributes" type="a{ss}" access="readwrite"/>
        <property name="Label" type="s" access="readwrite"/>
        <property name="Created" type="t" access="read"/>
        <property name="Modified" type="t" access="read"/>
      </interface>

    """

    private static let sessionXML = """
      <interface name="org.freedesktop.Secret.Session">
        <method name="Close"/>
      </interface>

    """

    private static let portalXML = """
      <interface name="org.freedesktop.impl.portal.Secret">
        <method name="RetrieveSecret">
          <arg name="handle" type="o" direction="in"/><arg name="app_id" type="s" direction="in"/>
          <arg name="fd" type="h" direction="in"/><arg name="options" type="a{sv}" direction="in"/>
          <arg name="response" type="u" direction="out"/><arg name="results" type="a{sv}" direction="out"/>
        </method>
        <property name="version" type="u" access="read"/>
      </interface>

    """

    private static let promptXML = """
      <interface name="org.freedesktop.Secret.Prompt">
        <method name="Prompt"><arg name="window-id" type="s" direction="in"/></method>
        <method name="Dismiss"/>
        <signal name="Completed"><arg name="dismissed" type="b"/><arg name="result" type="v"/></signal>
      </interface>

    """
}
