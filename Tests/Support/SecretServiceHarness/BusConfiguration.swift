/// The configuration of the private session bus: one socket in the sandbox, EXTERNAL
/// authentication, everything allowed, and deliberately NO service directories, so that a client
/// call can never D-Bus-activate the system's gnome-keyring in place of the provider under test.
enum BusConfiguration {
    static func text(listening path: String) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:path=\(path)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
        </busconfig>
        """
    }
}
