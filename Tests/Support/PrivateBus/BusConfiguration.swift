/// The configuration of a private test bus: one socket in the bus's 0700 directory, EXTERNAL
/// authentication, the memory and pending-reply limits of a real session bus (Debian's
/// `session.conf`: without them dbus-daemon's low built-in limits refuse libsecret's 200 deletes
/// at once, or a 160 MiB backlog to one connection, which real session buses carry), everything allowed (owning any name, sending and receiving anything; the
/// directory's mode is the access control), and deliberately NO service directories, so that a
/// call can never D-Bus-activate a system service (the user's gnome-keyring, the real fprintd)
/// in place of the one under test. `<type>` only sets what activated services would be told, and
/// nothing is activated: the same bus serves as the session bus of the Secret Service clients and
/// as the "system bus" of fprintd and the polkit stand-in (they find it by address).
enum BusConfiguration {
    static func text(listening path: String) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:path=\(path)</listen>
          <auth>EXTERNAL</auth>
          <limit name="max_incoming_bytes">1000000000</limit>
          <limit name="max_outgoing_bytes">1000000000</limit>
          <limit name="max_message_size">1000000000</limit>
          <limit name="max_replies_per_connection">50000</limit>
          <limit name="max_match_rules_per_connection">50000</limit>
          <policy context="default">
            <allow user="*"/>
            <allow own="*"/>
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
          </policy>
        </busconfig>
        """
    }
}
